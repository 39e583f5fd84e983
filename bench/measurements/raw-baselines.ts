/**
 * Ours against raw Temporal on the same dev server, in one run (bench:raw; issue 26, item 3):
 * - create (tools/call → CreateTaskResult) at c=1 against a raw start with the same memo, summary
 *   and search attributes as the server sends (learned from a real task), and against a plain
 *   `workflow.start`, interleaved per call;
 * - tasks/get of a running task at c=1 against a raw describe() of the same task, interleaved: its first read
 *   (a describe() behind it), then, the task read once more, its reads as a polled task (from the watch);
 * - the end-to-end batch (N tasks of 1 s created at c=32, polled every 250 ms until completed)
 *   against the same batch of raw `plainTimer` starts awaited with result(), A/B per round;
 * - events and workflow tasks per task from the batch's histories (ours wait_and_echo, raw plainTimer).
 */
import {
  type BenchContext,
  createOurs,
  getExpecting,
  learnServerStart,
  rawDescribe,
  startRaw,
  startRawLikeServer,
  terminateLive,
  createFixtureTasks,
  waitSettled,
} from '../clients';
import { measure, measureInterleaved } from '../measure';
import { readCpuSeconds } from '../infra';
import { log } from '../script';
import { atMost, judge, markdownTable, mean, ratio, type Target } from '../stats';
import { batchE2e, rawBatchE2e } from './end-to-end';
import { historyCounts, renderHistory } from './history';

/** The hot paths at c=1: create vs raw starts, tasks/get vs describe(), interleaved per call. */
async function hotPaths(ctx: BenchContext) {
  const { calls, getTasks } = ctx.cfg.raw;
  await learnServerStart(ctx, 600);
  log(`raw: ${calls} creates, raw starts with the same options and plain raw starts, c=1, interleaved`);
  const serve0 = ctx.pids ? readCpuSeconds(ctx.pids.server) : NaN;
  const creates = await measureInterleaved(
    calls,
    {
      ours: () => createOurs(ctx, 600),
      rawLikeServer: () => startRawLikeServer(ctx, 600),
      rawPlain: () => startRaw(ctx, 600),
    },
    ctx.cfg.measureTimeLimitMs,
  );
  const serveCpuPerCreateMs = ctx.pids ? (1000 * (readCpuSeconds(ctx.pids.server) - serve0)) / creates.ours.n : NaN;
  await terminateLive(ctx);
  log(`raw: ${getTasks} tasks/get of running tasks and describe() of the same, c=1, interleaved`);
  const { ids } = await createFixtureTasks(ctx, getTasks, 600);
  await waitSettled(ctx, ids);
  const serve1 = ctx.pids ? readCpuSeconds(ctx.pids.server) : NaN;
  const gets = await measureInterleaved(
    ids.length,
    {
      ours: (i: number) => getExpecting(ctx, ids[i], 'working'),
      describe: (i: number) => rawDescribe(ctx, ids[i]),
    },
    ctx.cfg.measureTimeLimitMs,
  );
  const serveCpuPerGetMs = ctx.pids ? (1000 * (readCpuSeconds(ctx.pids.server) - serve1)) / gets.ours.n : NaN;
  // the same tasks polled: a second read starts the replica's watch (src/tasks/watch/polled-tasks.ts), later reads answer from it
  for (const id of ids) await getExpecting(ctx, id, 'working');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const polledGets = await measureInterleaved(
    ids.length,
    {
      ours: (i: number) => getExpecting(ctx, ids[i], 'working'),
      describe: (i: number) => rawDescribe(ctx, ids[i]),
    },
    ctx.cfg.measureTimeLimitMs,
  );
  await terminateLive(ctx);
  const toolsList = (await measure(Math.min(calls, 50), 1, () => ctx.mcp.listTools())).stat;
  return {
    creates,
    gets,
    polledGets,
    toolsList,
    serveCpuPerCreateMs,
    serveCpuPerGetMs,
    sentLikeServer: { memo: ctx.serverStart!.memo, summary: ctx.serverStart!.staticSummary },
  };
}

/** The batch, ours then raw, then raw then ours (per round), on the same worker. */
async function endToEnd(ctx: BenchContext) {
  const { e2e, rounds, historySample } = ctx.cfg.raw;
  const e2eCtx = { ...ctx, cfg: { ...ctx.cfg, e2e } };
  const ours: Array<Omit<Awaited<ReturnType<typeof batchE2e>>, 'ids'>> = [];
  const raw: Array<Awaited<ReturnType<typeof rawBatchE2e>>> = [];
  const oursIds: string[] = [];
  const rawIds: string[] = [];
  const runOurs = async () => {
    log(`raw: e2e: ${e2e.tasks} wait_and_echo tasks of ${e2e.seconds} s at c=${e2e.createConcurrency}, polled every ${e2e.pollMs} ms`);
    const { ids, ...r } = await batchE2e(e2eCtx);
    oursIds.push(...ids);
    ours.push(r);
    await terminateLive(ctx);
  };
  const runRaw = async () => {
    log(`raw: e2e: ${e2e.tasks} raw plainTimer starts of ${e2e.seconds} s at c=${e2e.createConcurrency} + result()`);
    // the ids this batch starts, for the histories; any still running is left to the ctx's cleanup
    const started: string[] = [];
    const live = new Set<string>();
    const tracking = {
      add: (id: string) => {
        started.push(id);
        return live.add(id);
      },
      delete: (id: string) => live.delete(id),
    };
    const r = await rawBatchE2e({ ...e2eCtx, live: tracking }, 'plainTimer');
    live.forEach((id) => ctx.live.add(id));
    rawIds.push(...started);
    raw.push(r);
  };
  for (let round = 0; round < rounds; round++) {
    await runOurs();
    await runRaw();
    await runRaw();
    await runOurs();
  }
  log(`raw: histories of ${historySample} tasks of each`);
  const history = {
    timer: {
      ours: await historyCounts(ctx.client, oursIds.slice(0, historySample)),
      raw: await historyCounts(ctx.client, rawIds.slice(0, historySample)),
    },
  };
  return { ours, raw, history };
}

export async function benchRawBaselines(ctx: BenchContext) {
  return { ...(await hotPaths(ctx)), e2e: await endToEnd(ctx) };
}

/** One row: measurement, ours, raw, ratio, target, met. */
function row(name: string, ours: number | undefined, raw: number | undefined, target?: Target): unknown[] {
  const r = ratio(ours, raw);
  return [name, ours, raw, r, ...judge(target, r)];
}

type RawBaselines = Awaited<ReturnType<typeof benchRawBaselines>>;

export function rawBaselineRows(d: RawBaselines): unknown[][] {
  const { creates: c, gets: g, e2e } = d;
  const oursTotal = mean(e2e.ours.map((x) => x.totalMs));
  const rawTotal = mean(e2e.raw.map((x) => x.totalMs));
  const tasks = e2e.ours[0]?.tasks;
  const h = e2e.history.timer;
  return [
    row('create p50, c=1: vs raw start with the same memo + search attributes (ms)', c.ours.p50, c.rawLikeServer.p50, atMost(1.1)),
    row('create p99, c=1: vs raw start with the same memo + search attributes (ms)', c.ours.p99, c.rawLikeServer.p99),
    row('create p50, c=1: vs plain workflow.start (ms)', c.ours.p50, c.rawPlain.p50),
    row('create p99, c=1: vs plain workflow.start (ms)', c.ours.p99, c.rawPlain.p99),
    row('tasks/get p50, running task, c=1: vs raw describe() (ms)', g.ours.p50, g.describe.p50, atMost(1.2)),
    row('tasks/get p99, running task, c=1: vs raw describe() (ms)', g.ours.p99, g.describe.p99),
    row(
      'tasks/get p50, the same tasks polled (third read on, answered from the watch), c=1: vs raw describe() (ms)',
      d.polledGets.ours.p50,
      d.polledGets.describe.p50,
      atMost(1.2),
    ),
    row('tasks/get p99, the same tasks polled: vs raw describe() (ms)', d.polledGets.ours.p99, d.polledGets.describe.p99),
    row(
      `end to end: ${tasks} × 1 s at c=32, total: polled every ${e2e.ours[0]?.pollMs} ms vs raw plainTimer starts + result() (ms)`,
      oursTotal,
      rawTotal,
      atMost(1.1),
    ),
    row(
      '— median completion seen − created − 1 s (ms)',
      mean(e2e.ours.map((x) => x.medianObservedMinusTaskMs)),
      mean(e2e.raw.map((x) => x.medianObservedMinusTaskMs)),
    ),
    row('— completed', Math.min(...e2e.ours.map((x) => x.completed)), Math.min(...e2e.raw.map((x) => x.completed))),
    row('history events per task (1 s timer)', h.ours.events, h.raw.events),
    row('workflow tasks per task (1 s timer)', h.ours.workflowTasks, h.raw.workflowTasks),
  ];
}

export function renderRawBaselines(d: RawBaselines): string {
  const { creates: c, gets: g, e2e } = d;
  return [
    '## Ours vs raw Temporal on the same dev server, same run',
    '',
    markdownTable(['measurement', 'ours', 'raw', 'ours / raw', 'target', 'met'], rawBaselineRows(d)),
    '',
    `n: ${c.ours.n} creates of each kind (interleaved per call), ${g.ours.n} tasks/get and describe() (interleaved), ${e2e.ours.length} + ${e2e.raw.length} batches (ours, raw, raw, ours per round). Errors: create ${c.ours.errors}/${c.rawLikeServer.errors}/${c.rawPlain.errors}, get ${g.ours.errors}/${g.describe.errors}, e2e ${e2e.ours.reduce((a, x) => a + x.errors, 0)}.`,
    `MCP floor (tools/list, no Temporal call, c=1): p50 ${d.toolsList.p50.toFixed(2)} ms, p99 ${d.toolsList.p99.toFixed(2)} ms. serve CPU per create ${d.serveCpuPerCreateMs.toFixed(2)} ms, per tasks/get ${d.serveCpuPerGetMs.toFixed(2)} ms.`,
    `"Same options": the memo, static summary and search attributes read back from a task the server created (${Object.keys(d.sentLikeServer.memo).join(', ')}; summary "${d.sentLikeServer.summary}").`,
    "The raw batch runs `plainTimer`, the demo's waitAndEcho without the task runtime, on the same worker, awaited with result() long polls (no polling): the floor an MCP stack on Temporal could reach.",
    '',
    "### Temporal history per task (from the batch's histories)",
    '',
    renderHistory(e2e.history, {
      works: { timer: 'a 1 s durable timer' },
      stacks: { ours: 'ours (wait_and_echo)', raw: 'raw (plainTimer)' },
    }),
  ].join('\n');
}
