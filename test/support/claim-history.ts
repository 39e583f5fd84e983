/**
 * A task's history, read for the claim guard's races across a worker crash: the guard's timer,
 * what was signalled before it fired, and whether one workflow task got both (no worker ran
 * between them). Every language's worker records the same events, so one reading serves all.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal as proto } from '@temporalio/proto';
import { waitFor } from './wait';

export const EventType = proto.api.enums.v1.EventType;
export type HistoryEvent = proto.api.history.v1.IHistoryEvent;

export const eventTime = (e: HistoryEvent) => tsToMs(e.eventTime);
export const eventId = (e: HistoryEvent) => Number(e.eventId);
export const eventNames = (events: HistoryEvent[]) => events.map((e) => EventType[e.eventType!].replace('EVENT_TYPE_', '')).join(' ');

export const signalNamed = (events: HistoryEvent[], name: string) =>
  events.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes!.signalName === name,
  );

/** The workflow tasks that completed after `first` and before `last`: none, and the next worker's first one gets both. */
export const completedBetween = (events: HistoryEvent[], first: HistoryEvent, last: HistoryEvent) =>
  events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && eventId(e) > eventId(first) && eventId(e) < eventId(last),
  );

/** Histories of runs guarded with `claimWithinMs`, read through `client()` (a test's, once its Temporal runs). */
export function claimHistory(client: () => Client, claimWithinMs: number) {
  const history = async (taskId: string): Promise<HistoryEvent[]> =>
    (await client().workflow.getHandle(taskId).fetchHistory()).events ?? [];

  /** The guard's timer (a wait of claimWithinMs for the claim): its TimerStarted and, once the deadline passed, its TimerFired. */
  const guardTimer = (events: HistoryEvent[]): { started?: HistoryEvent; fired?: HistoryEvent } => {
    const started = events.find(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_TIMER_STARTED && tsToMs(e.timerStartedEventAttributes!.startToFireTimeout) === claimWithinMs,
    );
    const fired = started
      ? events.find(
          (e) =>
            e.eventType === EventType.EVENT_TYPE_TIMER_FIRED && Number(e.timerFiredEventAttributes!.startedEventId) === eventId(started),
        )
      : undefined;
    return { started, fired };
  };

  /** Polls the task's history until `ready` finds what it waits for; the history in the error when it never does. */
  const historyUntil = async <T>(taskId: string, what: string, ready: (events: HistoryEvent[]) => T | undefined): Promise<T> => {
    let last: HistoryEvent[] = [];
    try {
      return await waitFor(async () => ready((last = await history(taskId))), 30_000, 100, what);
    } catch (err) {
      throw new Error(`${(err as Error).message}; history: ${eventNames(last)}`);
    }
  };

  /**
   * Waits until the guard's deadline passed in Temporal (its timer fired) and no workflow task
   * waits on a dead worker's sticky queue (it leaves after that queue's schedule-to-start
   * timeout): the next worker gets the task as soon as it polls.
   */
  const deadlinePassed = (taskId: string): Promise<{ fired: HistoryEvent; events: HistoryEvent[] }> =>
    historyUntil(taskId, `the claim deadline of ${taskId} passed`, (events) => {
      const { fired } = guardTimer(events);
      if (!fired) return undefined;
      const lastTask = [...events].reverse().find((e) => EventType[e.eventType!].startsWith('EVENT_TYPE_WORKFLOW_TASK_'));
      const onDeadSticky =
        lastTask?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED &&
        lastTask.workflowTaskScheduledEventAttributes?.taskQueue?.kind === proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY;
      return onDeadSticky ? undefined : { fired, events };
    });

  return { history, guardTimer, historyUntil, deadlinePassed };
}
