/**
 * What the task runtime costs the worker per workflow, next to the TypeScript SDK's own cost: on
 * one worker (`node dist/cli/index.js worker`, a fresh dev server), batches of N short timer
 * workflows, alternately `plainTimer` (no task runtime) and the demo's `waitAndEcho` started with
 * exactly what our server sends (its memo and search attributes, learned from a real task), are
 * started at c=16 and awaited with result(). The worker's CPU per workflow is read from /proc,
 * split by thread: the main thread, the SDK core's (tokio) threads, its other live threads (the
 * workflow thread, V8's helpers) and threads that ended during the batch (Node runs every call into
 * a workflow's context with a timeout under a watchdog thread of its own).
 *
 *   node build/bench/worker-cpu.js                        400 workflows per batch, 2 rounds (after a build)
 *   BENCH_WORKFLOWS=200 BENCH_ROUNDS=3 node build/bench/worker-cpu.js
 */
import { mcpTasks } from '../test/support/mcp-client';
import type { Cleanup } from '../test/support/processes';
import { type CallContext, type ServerStart, startRaw, startRawLikeServer, waitCompleted } from './clients';
import { readCpuSeconds, readThreadCpuSeconds, startInfra } from './infra';
import { forEachBounded } from './measure';
import { connectRaw, envInt, log, now, runBench } from './script';
import { markdownTable, summarize } from './stats';

const WORKFLOWS = envInt('BENCH_WORKFLOWS', 400);
const ROUNDS = envInt('BENCH_ROUNDS', 2);
const CONCURRENCY = 16;
const TIMER_SECONDS = 0.2;

type Kind = 'plainTimer' | 'waitAndEcho as a task';
type ThreadGroups = { all: number; main: number; core: number; otherLive: number; ended: number };

/** CPU seconds of the worker by group of threads; `ended` is what threads no longer alive used. */
function threadGroups(pid: number): ThreadGroups {
  const groups = { all: readCpuSeconds(pid), main: 0, core: 0, otherLive: 0, ended: 0 };
  for (const [tid, name, cpu] of readThreadCpuSeconds(pid)) {
    if (tid === pid) groups.main += cpu;
    else if (name.startsWith('tokio-runtime')) groups.core += cpu;
    else groups.otherLive += cpu;
  }
  groups.ended = groups.all - groups.main - groups.core - groups.otherLive;
  return groups;
}

/** Per-workflow ms of each group between two readings. */
function perWorkflowMs(before: ThreadGroups, after: ThreadGroups, workflows: number): ThreadGroups {
  const ms = (k: keyof ThreadGroups) => (1000 * (after[k] - before[k])) / workflows;
  return { all: ms('all'), main: ms('main'), core: ms('core'), otherLive: ms('otherLive'), ended: ms('ended') };
}

async function batch(ctx: CallContext & { serverStart?: ServerStart }, workerPid: number, kind: Kind) {
  const before = threadGroups(workerPid);
  const t0 = now();
  const ids: string[] = [];
  const errors = await forEachBounded([...Array(WORKFLOWS).keys()], CONCURRENCY, async () => {
    ids.push(kind === 'plainTimer' ? await startRaw(ctx, TIMER_SECONDS, 'plainTimer') : await startRawLikeServer(ctx, TIMER_SECONDS));
  });
  if (errors) throw new Error(`${errors} of ${WORKFLOWS} starts failed`);
  await waitCompleted({ ...ctx, cfg: { setupConcurrency: 64 }, live: new Set() }, ids, 300_000);
  const wallS = (now() - t0) / 1000;
  const cost = perWorkflowMs(before, threadGroups(workerPid), WORKFLOWS);
  log(`${kind}: ${WORKFLOWS} in ${wallS.toFixed(1)} s, worker ${cost.all.toFixed(2)} ms CPU per workflow`);
  return { kind, wallS, ...cost };
}

async function main(cleanup: Cleanup): Promise<void> {
  const infra = await startInfra(cleanup, { pollIntervalMs: 1000 });
  const ctx = { mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), live: new Set<string>() };
  const rows: Awaited<ReturnType<typeof batch>>[] = [];
  const kinds: Kind[] = ['plainTimer', 'waitAndEcho as a task'];
  for (const kind of kinds) await batch(ctx, infra.pids.worker, kind); // warm-up: not counted
  for (let round = 0; round < ROUNDS; round++)
    for (const kind of round % 2 ? [...kinds].reverse() : kinds) rows.push(await batch(ctx, infra.pids.worker, kind));
  const cols = ['all', 'main', 'core', 'otherLive', 'ended'] as const;
  const range = (kind: Kind, k: (typeof cols)[number] | 'wallS') => {
    const s = summarize(rows.filter((r) => r.kind === kind).map((r) => r[k]));
    return `${s.mean.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
  };
  console.log(
    `\nworker CPU per workflow (ms, mean and range of ${ROUNDS} batches of ${WORKFLOWS} × ${TIMER_SECONDS} s timers at c=${CONCURRENCY})\n`,
  );
  console.log(
    markdownTable(
      [
        'workflow',
        'the worker',
        'main thread',
        'SDK core (tokio)',
        'workflow thread and V8 helpers',
        'ended threads (vm watchdogs)',
        'batch (s)',
      ],
      kinds.map((kind) => [kind, ...cols.map((k) => range(kind, k)), range(kind, 'wallS')]),
    ),
  );
}

runBench(main);
