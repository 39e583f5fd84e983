import { type Client, WorkflowNotFoundError } from '@temporalio/client';

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
   * task's end is then known from the event itself (TaskReads.completedFrom), with no further call.
   */
  completion?: HistoryEvent;
  /** The id of the last event of the page that woke it: the history's length when that page reached its end. */
  lastEventId?: number;
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
  for (;;) {
    const catchUp = token === undefined;
    // the catch-up answers at once, so it gets the bound of any other call
    const page = await longPoll(client, cursor.workflowId, token, signal, catchUp ? catchUpTimeoutMs : LONG_POLL_DEADLINE_MS);
    if (!page) continue; // the deadline passed before the server answered: nothing happened
    const next = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    const events = page.history?.events ?? [];
    const lastEventId = events.length > 0 ? Number(events.at(-1)!.eventId) : undefined;
    if (!next) return { cursor: { workflowId: cursor.workflowId }, completion: completionOf(events), lastEventId };
    // the catch-up (the history so far) is answered at once: the caller reads the task after it
    if (catchUp || events.some(changesWhatReadersSee)) return { cursor: { workflowId: cursor.workflowId, token: next }, lastEventId };
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
