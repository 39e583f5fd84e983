/**
 * Where a SIGKILLed worker's tasks waited, read from their histories: each task's timer fired
 * while no worker held it; its next workflow task was scheduled on the dead worker's sticky queue
 * (and waited out the sticky schedule-to-start timeout) or on the shared queue, and started when a
 * live worker took it. Resume delay: that start − the later of the timer firing and the moment the
 * new worker was up (it polls from then on).
 */
import type { temporal } from '@temporalio/proto';
import { handle } from '../clients';
import { forEachBounded } from '../measure';
import { summarize } from '../stats';
import type { PeerContext } from './stacks';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const tsMs = (ts: HistoryEvent['eventTime']) => (ts ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : NaN);
const STICKY = 2; // temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY

/** One task's phases after its timer fired (ms, wall clock); undefined when it has no fired timer. */
export function phasesAfterTimer(events: HistoryEvent[], workerUpAtMs: number) {
  const fired = events.findIndex((e) => e.timerFiredEventAttributes);
  if (fired < 0) return undefined;
  const after = events.slice(fired);
  const firedAt = tsMs(events[fired].eventTime);
  const scheduled = after.find((e) => e.workflowTaskScheduledEventAttributes);
  const started = after.find((e) => e.workflowTaskStartedEventAttributes);
  const startedAt = tsMs(started?.eventTime);
  // the events after the timer fired, for the slowest task's record: type, ms after firing, its queue kind
  const trace = after.map((e) => {
    const queue =
      e.workflowTaskScheduledEventAttributes?.taskQueue?.kind === STICKY
        ? ` sticky ${e.workflowTaskScheduledEventAttributes.taskQueue.name}`
        : '';
    const by = e.workflowTaskStartedEventAttributes?.identity ? ` by ${e.workflowTaskStartedEventAttributes.identity}` : '';
    return `${e.eventType}${queue}${by} +${tsMs(e.eventTime) - firedAt}`;
  });
  return {
    trace,
    onSticky: scheduled?.workflowTaskScheduledEventAttributes?.taskQueue?.kind === STICKY,
    timedOut: after.filter((e) => e.workflowTaskTimedOutEventAttributes).length,
    firedToStartMs: startedAt - firedAt,
    resumeMs: startedAt - Math.max(firedAt, workerUpAtMs),
  };
}

/** The killed tasks' phases, summed up: how many went to the sticky queue, the resume delays. */
export async function killPhases(ctx: PeerContext, taskIds: string[], workerUpAtMs: number) {
  const phases: Array<NonNullable<ReturnType<typeof phasesAfterTimer>>> = [];
  await forEachBounded(taskIds, 16, async (id) => {
    const p = phasesAfterTimer((await handle(ctx, id).fetchHistory()).events ?? [], workerUpAtMs);
    if (p) phases.push(p);
  });
  const slowest = phases.reduce((a, p) => (p.firedToStartMs > a.firedToStartMs ? p : a), phases[0]);
  return {
    slowestTrace: slowest?.trace.join(', '),
    tasks: phases.length,
    scheduledOnSticky: phases.filter((p) => p.onSticky).length,
    timedOut: phases.reduce((a, p) => a + p.timedOut, 0),
    firedToStartMs: summarize(phases.map((p) => p.firedToStartMs)),
    resumeAfterLiveWorkerMs: summarize(phases.map((p) => p.resumeMs)),
  };
}
