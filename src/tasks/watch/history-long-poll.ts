import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { performance } from 'node:perf_hooks';

type HistoryPage = Awaited<ReturnType<Client['workflowService']['getWorkflowExecutionHistory']>>;
export type HistoryEvent = NonNullable<NonNullable<HistoryPage['history']>['events']>[number];

/** Where a watch stands in a workflow's history: Temporal's continuation token of the run it follows. */
export interface HistoryCursor {
  workflowId: string;
  /** Undefined: start at the current run (its history so far is read once, as the catch-up). */
  token?: Uint8Array;
}

/**
 * Something readers see may have changed: read the task. `cursor` follows on (after a run
 * closed, it starts at the workflow's current run: a continue-as-new is followed).
 */
export interface HistoryWait {
  cursor: HistoryCursor;
  /**
   * The run's completion, when the page that woke ends with it and holds no cancel request: the
   * task's end is then known from the event itself (TaskReads.fromHistory), with no further call.
   */
  completion?: HistoryEvent;
  /** The id of the last event of the page that woke it: the history's length when that page reached its end. */
  lastEventId?: number;
  /**
   * The last progress update (its memo event) since the cursor, when every other event since is
   * one that leaves the rest of what readers see alone: a running task is then known from it
   * (TaskReads.fromHistory), with no further call.
   */
  progress?: HistoryEvent;
  /** When the call whose page woke it was made (performance.now()): what the page says is no older. */
  polledAt: number;
}

/** Longer than the server's own long-poll period (20 s), so the server answers first. */
const LONG_POLL_DEADLINE_MS = 70_000;
const PAGE_SIZE = 1000;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;

/**
 * Waits until Temporal records an event after which a reader may see the task differently: a
 * progress update (memo), an answer (signal), a cancel request, a failed workflow task (the
 * task may be stuck), an activity scheduled (its progress comes with no event), or the end of
 * the run. It is
 * Temporal's history long-poll, so an idle task costs one call per long-poll period and no
 * worker: the server answers when the history grows. Other events (timers, activities,
 * workflow tasks) are skipped here without any further call. Throws WorkflowNotFoundError for
 * an unknown workflow.
 */
export async function waitForTaskEvent(
  client: Client,
  cursor: HistoryCursor,
  signal: AbortSignal,
  catchUpTimeoutMs: number,
): Promise<HistoryWait> {
  let token = cursor.token;
  let skippedAlone = true; // the pages skipped so far held only events that leave readers' view alone
  for (;;) {
    const catchUp = token === undefined;
    const polledAt = performance.now();
    // the catch-up answers at once, so it gets the bound of any other call
    const page = await longPoll(client, cursor.workflowId, token, signal, catchUp ? catchUpTimeoutMs : LONG_POLL_DEADLINE_MS);
    if (!page) continue; // the deadline passed before the server answered: nothing happened
    const next = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    const events = page.history?.events ?? [];
    const seen = { lastEventId: events.length > 0 ? Number(events.at(-1)!.eventId) : undefined, polledAt };
    if (!next) return { cursor: { workflowId: cursor.workflowId }, completion: completionOf(events), ...seen };
    // the catch-up (the history so far) is answered at once: the caller reads the task after it
    if (catchUp || events.some(changesWhatReadersSee)) {
      const progress = skippedAlone && !catchUp ? progressAlone(events) : undefined;
      return { cursor: { workflowId: cursor.workflowId, token: next }, ...seen, ...(progress ? { progress } : {}) };
    }
    skippedAlone &&= events.every(leavesReadersViewAlone);
    token = next;
  }
}

async function longPoll(client: Client, workflowId: string, token: Uint8Array | undefined, signal: AbortSignal, timeoutMs: number) {
  // the client adds a listener to the signal it is given per call and never removes it: a
  // watch's own signal would keep every long-poll it made (one per ~20 s while idle) alive
  const call = new AbortController();
  const abort = () => call.abort();
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await client.withAbortSignal(call.signal, () =>
      client.withDeadline(Date.now() + timeoutMs, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId },
          nextPageToken: token,
          waitNewEvent: true,
          skipArchival: true,
          maximumPageSize: PAGE_SIZE,
        }),
      ),
    );
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === GRPC_DEADLINE_EXCEEDED && token !== undefined && !signal.aborted) return undefined;
    if (code === GRPC_NOT_FOUND) throw new WorkflowNotFoundError('No such task', workflowId, undefined);
    throw err;
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/** The completion a final page ends with, unless the page also holds a cancel request (then readers must see it). */
export function completionOf(events: HistoryEvent[]): HistoryEvent | undefined {
  const last = events.at(-1);
  if (!last?.workflowExecutionCompletedEventAttributes) return undefined;
  return events.some((e) => e.workflowExecutionCancelRequestedEventAttributes) ? undefined : last;
}

/** The page's last progress update (memo event), when every other event in it leaves what readers see alone. */
export function progressAlone(events: HistoryEvent[]): HistoryEvent | undefined {
  let progress: HistoryEvent | undefined;
  for (const event of events) {
    if (event.workflowPropertiesModifiedEventAttributes) progress = event;
    else if (!leavesReadersViewAlone(event)) return undefined;
  }
  return progress;
}

/**
 * Events after which what a reader sees of a running task changes by its progress memo alone:
 * workflow tasks that completed, timers, search attributes, markers (patches, local activities).
 */
function leavesReadersViewAlone(event: HistoryEvent): boolean {
  return !!(
    event.workflowTaskScheduledEventAttributes ||
    event.workflowTaskStartedEventAttributes ||
    event.workflowTaskCompletedEventAttributes ||
    event.timerStartedEventAttributes ||
    event.timerFiredEventAttributes ||
    event.timerCanceledEventAttributes ||
    event.upsertWorkflowSearchAttributesEventAttributes ||
    event.markerRecordedEventAttributes
  );
}

function changesWhatReadersSee(event: HistoryEvent): boolean {
  return !!(
    event.workflowPropertiesModifiedEventAttributes ||
    event.workflowExecutionSignaledEventAttributes ||
    event.workflowExecutionCancelRequestedEventAttributes ||
    event.workflowTaskFailedEventAttributes || // the task may be stuck (tasks/get says so)
    event.activityTaskScheduledEventAttributes || // its start and heartbeats write no event: readers re-read while it runs
    event.workflowExecutionCompletedEventAttributes ||
    event.workflowExecutionFailedEventAttributes ||
    event.workflowExecutionCanceledEventAttributes ||
    event.workflowExecutionTerminatedEventAttributes ||
    event.workflowExecutionTimedOutEventAttributes ||
    event.workflowExecutionContinuedAsNewEventAttributes
  );
}
