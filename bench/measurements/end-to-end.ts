/** 5. End to end: batches of short tasks created and polled to completion, beside raw starts + result(), with a Temporal-side breakdown. */
import type { temporal } from '@temporalio/proto';
import { type BenchContext, type CallContext, createOurs, handle, rawDescribe, startRaw, terminateLive } from '../clients';
import { measure } from '../measure';
import { log, now } from '../script';
import { markdownTable, ratio, type Summary, summarize } from '../stats';
import { timedBatch } from './batch';
import { sleep } from '../../test/support/wait';

/**
 * Polls tasks/get from notBefore every pollMs until completed; resolves with the time observed.
 * `reads.count` counts the reads answered. Closed loop (default): the next read waits pollMs after
 * the answer, so a slower server gets fewer. Open loop: reads at notBefore + k × pollMs whatever
 * the answers take (a slot missed while a read is out is skipped), as a client following the
 * server's advised interval does: the same reads for every stack.
 */
export async function pollUntilCompleted(
  ctx: Pick<BenchContext, 'mcp'>,
  taskId: string,
  notBefore: number,
  pollMs: number,
  deadline: number,
  reads = { count: 0 },
  openLoop = false,
): Promise<number> {
  return pollUntil(() => ctx.mcp.getTask(taskId).then((t) => t.status), ['completed', 'working'], {
    taskId,
    notBefore,
    pollMs,
    deadline,
    reads,
    openLoop,
  });
}

/** The polling loop of pollUntilCompleted, over any status read: done is the first status, going on the second. */
export async function pollUntil(
  read: () => Promise<string>,
  [done, going]: [string, string],
  o: { taskId: string; notBefore: number; pollMs: number; deadline: number; reads: { count: number }; openLoop: boolean },
): Promise<number> {
  let slot = o.notBefore;
  await sleep(slot - now());
  for (;;) {
    const status = await read();
    o.reads.count++;
    if (status === done) return now();
    if (status !== going) throw new Error(`task ${o.taskId} ended ${status}`);
    if (now() > o.deadline) throw new Error(`task ${o.taskId} not completed by the deadline`);
    slot = o.openLoop ? Math.max(slot + o.pollMs, now()) : now() + o.pollMs;
    await sleep(slot - now());
  }
}

/** Temporal's own view: closeTime − startTime − task duration, from describe(). */
async function temporalSideOverheads(ctx: BenchContext, ids: string[], taskMs: number): Promise<number[]> {
  const { results } = await measure(ids.length, ctx.cfg.setupConcurrency, (i) => rawDescribe(ctx, ids[i]), 600_000);
  return results.filter((d) => d?.closeTime).map((d) => d.closeTime!.getTime() - d.startTime.getTime() - taskMs);
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const tsMs = (ts: HistoryEvent['eventTime']) => (ts ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : NaN);

/** Where one finished wait_and_echo spent its time beyond the timer, from its history (ms). */
function historyPhases(events: HistoryEvent[], taskMs: number): Record<string, number> {
  const at = (attr: keyof HistoryEvent, nth = 0) => {
    const event = events.filter((e) => e[attr])[nth];
    return event ? tsMs(event.eventTime) : NaN;
  };
  const completed = at('workflowExecutionCompletedEventAttributes');
  return {
    firstTaskPickup: at('workflowTaskStartedEventAttributes', 0) - at('workflowExecutionStartedEventAttributes'),
    firstTaskRun: at('workflowTaskCompletedEventAttributes', 0) - at('workflowTaskStartedEventAttributes', 0),
    timerLate: at('timerFiredEventAttributes') - at('timerStartedEventAttributes') - taskMs,
    secondTaskPickup: at('workflowTaskStartedEventAttributes', 1) - at('timerFiredEventAttributes'),
    secondTaskRun: completed - at('workflowTaskStartedEventAttributes', 1),
    total: completed - at('workflowExecutionStartedEventAttributes') - taskMs,
  };
}

/** historyPhases of up to `sample` tasks, summarized per phase. */
export async function historyBreakdown(
  ctx: Pick<BenchContext, 'client'>,
  ids: string[],
  taskMs: number,
  sample = 100,
): Promise<Record<string, Summary>> {
  const picked = ids.slice(0, sample);
  const { results } = await measure(picked.length, 16, (i) => handle(ctx, picked[i]).fetchHistory(), 600_000);
  const phases = results.filter(Boolean).map((h) => historyPhases(h.events ?? [], taskMs));
  const names = Object.keys(phases[0] ?? {});
  return Object.fromEntries(names.map((n) => [n, summarize(phases.map((p) => p[n]).filter(Number.isFinite))]));
}

/** One task at a time, polled closely: what a single task costs beyond its timer without load. */
async function unloadedE2e(ctx: BenchContext) {
  const { unloadedTasks, unloadedPollMs, seconds } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  const observed: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < unloadedTasks; i++) {
    const sent = now();
    const { taskId } = await createOurs(ctx, seconds);
    const doneAt = await pollUntilCompleted(ctx, taskId, now() + taskMs, unloadedPollMs, now() + 60_000);
    observed.push(doneAt - sent - taskMs);
    ids.push(taskId);
    ctx.live.delete(taskId);
  }
  const temporalSide = await temporalSideOverheads(ctx, ids, taskMs);
  return {
    tasks: unloadedTasks,
    pollMs: unloadedPollMs,
    observedMinusTask: summarize(observed),
    temporalCloseMinusStartMinusTask: summarize(temporalSide),
  };
}

/** What batchE2e and rawBatchE2e read of a bench context: bench:raw and bench:peer pass their own batch settings. */
export type E2eContext = CallContext & {
  cfg: {
    e2e: Pick<BenchContext['cfg']['e2e'], 'tasks' | 'seconds' | 'createConcurrency' | 'pollMs' | 'timeoutMs'> & { openLoop?: boolean };
  };
};

/** The batch: all tasks created at once (bounded concurrency), each polled until completed (at the advised interval unless pollMs). */
export async function batchE2e(ctx: E2eContext) {
  const { seconds, pollMs, openLoop } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  let advisedMs: number | undefined;
  const { ids, ...batch } = await timedBatch(
    ctx.cfg.e2e,
    ctx.live,
    async () => {
      const { taskId, pollIntervalMs } = await createOurs(ctx, seconds);
      advisedMs = pollIntervalMs;
      return taskId;
    },
    (taskId, createdAt, deadline, reads) =>
      pollUntilCompleted(ctx, taskId, createdAt + taskMs, pollMs || advisedMs!, deadline, reads, openLoop),
  );
  return { ...batch, taskSeconds: seconds, pollMs: pollMs || advisedMs, openLoop: !!openLoop, ids };
}

/**
 * The same batch with the raw client: starts at the same concurrency, then result() (no polling).
 * workflowType `plainTimer` runs the same timer with no task runtime (bench:raw, bench:peer).
 */
export async function rawBatchE2e(ctx: E2eContext, workflowType = 'waitAndEcho') {
  const { ids: _ids, ...batch } = await timedBatch(
    ctx.cfg.e2e,
    ctx.live,
    () => startRaw(ctx, ctx.cfg.e2e.seconds, workflowType),
    async (id) => {
      await ctx.client.withDeadline(Date.now() + ctx.cfg.e2e.timeoutMs, () => handle(ctx, id).result());
      return now();
    },
  );
  return batch;
}

export async function benchE2e(ctx: BenchContext) {
  const { tasks, seconds, unloadedTasks } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  log(`e2e: ${unloadedTasks} tasks one at a time`);
  const unloaded = await unloadedE2e(ctx);
  log(`e2e: ${tasks} tasks of ${seconds} s`);
  const { ids, ...batch } = await batchE2e(ctx);
  const temporalSide = await temporalSideOverheads(ctx, ids, taskMs);
  const breakdown = await historyBreakdown(ctx, ids, taskMs);
  await terminateLive(ctx);
  log(`e2e: the same batch with raw starts + result()`);
  const raw = await rawBatchE2e(ctx);
  await terminateLive(ctx);
  return { ...batch, temporalCloseMinusStartMinusTask: summarize(temporalSide), historyBreakdown: breakdown, unloaded, raw };
}

const PHASES: Record<string, string> = {
  firstTaskPickup: 'start → worker picks up 1st workflow task',
  firstTaskRun: '1st workflow task run (schedules the timer)',
  timerLate: 'timer fired − timer started − 1 s',
  secondTaskPickup: 'timer fired → worker picks up 2nd workflow task',
  secondTaskRun: '2nd workflow task → completed',
  total: 'close − start − 1 s',
};

export function renderE2e(e: Awaited<ReturnType<typeof benchE2e>>): string {
  return [
    `## 5. End to end: ${e.tasks} wait_and_echo tasks of ${e.taskSeconds} s, created at c=${e.create.concurrency}, polled every ${e.pollMs} ms after their first ${e.taskSeconds} s`,
    markdownTable(
      [
        'tasks',
        'completed',
        'errors',
        'total (ms)',
        '(total − 1 s)/tasks (ms)',
        'median observed − created − 1 s (ms)',
        'p95',
        'p99',
        'Temporal close − start − 1 s p50 (ms)',
        'p99',
        'creates/s',
      ],
      [
        [
          e.tasks,
          e.completed,
          e.errors,
          e.totalMs,
          e.overheadPerTaskMs,
          e.medianObservedMinusTaskMs,
          e.observedMinusTask.p95,
          e.observedMinusTask.p99,
          e.temporalCloseMinusStartMinusTask.p50,
          e.temporalCloseMinusStartMinusTask.p99,
          e.create.perSecond,
        ],
      ],
    ),
    '',
    `Raw baseline, the same batch: raw starts at c=${e.raw.create.concurrency}, then handle.result() (long poll, no polling):`,
    markdownTable(
      [
        'tasks',
        'completed',
        'total (ms)',
        '(total − 1 s)/tasks (ms)',
        'median result − started − 1 s (ms)',
        'p95',
        'p99',
        'starts/s',
        'ratio total ours/raw',
      ],
      [
        [
          e.raw.tasks,
          e.raw.completed,
          e.raw.totalMs,
          e.raw.overheadPerTaskMs,
          e.raw.medianObservedMinusTaskMs,
          e.raw.observedMinusTask.p95,
          e.raw.observedMinusTask.p99,
          e.raw.create.perSecond,
          ratio(e.totalMs, e.raw.totalMs),
        ],
      ],
    ),
    '',
    `The observed times include up to one poll interval (${e.pollMs} ms) of polling granularity.`,
    `Without load (${e.unloaded.tasks} tasks one at a time, polled every ${e.unloaded.pollMs} ms): sent → completed observed − 1 s p50 ${e.unloaded.observedMinusTask.p50.toFixed(0)} ms (max ${e.unloaded.observedMinusTask.max.toFixed(0)}), Temporal close − start − 1 s p50 ${e.unloaded.temporalCloseMinusStartMinusTask.p50.toFixed(0)} ms.`,
    '',
    `Temporal-side breakdown from the histories of ${e.historyBreakdown.total?.n ?? 0} tasks (ms beyond the ${e.taskSeconds} s timer):`,
    markdownTable(
      ['phase', 'p50', 'p95', 'p99', 'max'],
      Object.entries(PHASES).map(([key, label]) => {
        const s: Partial<Summary> = e.historyBreakdown[key] ?? {};
        return [label, s.p50, s.p95, s.p99, s.max];
      }),
    ),
  ].join('\n');
}
