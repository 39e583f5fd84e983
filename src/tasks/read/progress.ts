/**
 * A running task's progress as tasks/get reads it: the workflow's memo, the answers it has not run
 * yet, and what its running activities reported (heartbeat details).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import {
  type ActivityProgress,
  activityProgressOf,
  activityProgressText,
  inputResponsesSignal,
  PROGRESS_MEMO_KEY,
  type TaskProgress,
} from '../../contract';
import { isTerminal, type ProgressCounts, type TaskSnapshot, type TaskState } from '../task-snapshot';
import type { HistoryEvent } from '../watch/history-long-poll';
import type { Bounded } from '../store-parts';

/**
 * A running task after a progress update, from that update's memo event alone (HistoryWait.progress:
 * no other event since `last` changes what readers see), as readRunning would answer, but for its
 * ttlMs. Undefined where `last` depends on more than the memo: an activity pending (its
 * heartbeats), a stuck workflow task, a cancel requested.
 */
export async function progressFrom(
  last: TaskSnapshot,
  event: HistoryEvent,
  historyLength: number,
  decode: (payload: Payload) => Promise<unknown>,
): Promise<TaskSnapshot | undefined> {
  const payload = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_MEMO_KEY];
  if (!payload || isTerminal(last) || last.activityRunning || last.stuck || last.cancelRequested) return undefined;
  const progress = (await decode(payload)) as TaskProgress;
  const { progress: _counts, ...rest } = last; // counts come with an activity's report only
  return {
    ...rest,
    lastUpdatedAt: progress.lastUpdatedAt,
    statusMessage: progress.statusMessage,
    state: runningState(progress, false),
    historyLength,
  };
}

/** A running task's state from its progress: waiting for input, unless a cancel was asked for. */
export function runningState(progress: TaskProgress, cancelRequested: boolean): TaskState {
  return progress.status === 'input_required' && !cancelRequested
    ? { status: 'input_required', inputRequests: progress.inputRequests }
    : { status: 'working' };
}

/** Events read back from a history's end for answers not yet applied (a few signals at most). */
const ANSWERS_PAGE = 50;

/**
 * The memo is current, except for answers recorded since the workflow last ran (a workflow
 * task pending, e.g. no worker yet): those are read from the end of the history and applied to
 * the memo's view, so a tasks/get right after a tasks/update sees it without asking a worker.
 */
export async function readProgress(client: Client, bounded: Bounded, description: WorkflowExecutionDescription): Promise<TaskProgress> {
  const memo = description.memo?.[PROGRESS_MEMO_KEY] as TaskProgress | undefined;
  const progress: TaskProgress = memo ?? { status: 'working', lastUpdatedAt: description.startTime.toISOString(), inputRequests: {} };
  if (!description.raw.pendingWorkflowTask || progress.status !== 'input_required') return progress;
  const answered = await answersNotYetApplied(client, bounded, description);
  if (answered.size === 0) return progress;
  const inputRequests = Object.fromEntries(Object.entries(progress.inputRequests).filter(([key]) => !answered.has(key)));
  return { ...progress, status: Object.keys(inputRequests).length > 0 ? 'input_required' : 'working', inputRequests };
}

/**
 * The keys answered by tasks/update signals the workflow had not run yet when it was described
 * (as of its history length then; a workflow task that completed since wrote a newer memo than
 * the one in hand, so its events are skipped, not taken as the end).
 */
async function answersNotYetApplied(client: Client, bounded: Bounded, description: WorkflowExecutionDescription): Promise<Set<string>> {
  const { history } = await bounded(() =>
    client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: ANSWERS_PAGE,
    }),
  );
  const keys = new Set<string>();
  for (const event of history?.events ?? []) {
    if (Number(event.eventId) > description.historyLength) continue;
    if (event.workflowTaskCompletedEventAttributes) break; // the workflow has seen everything before
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== inputResponsesSignal.name) continue;
    const answers = await decodeFromPayloadsAtIndex<Record<string, unknown>>(client.options.loadedDataConverter, 0, signal.input?.payloads);
    for (const key of Object.keys(answers ?? {})) keys.add(key);
  }
  return keys;
}

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type Payloads = NonNullable<PendingActivity['heartbeatDetails']>['payloads'];

const SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
/** Pending activity states in which an attempt is running (and may heartbeat). */
const RUNNING = new Set<number>([
  temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
  temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED,
]);

/**
 * An activity is scheduled, running, or being retried: its progress, or its attempt count and
 * last failure, may change with no history event (an attempt's start, heartbeats and retries
 * write none).
 */
export function activityRunning(pending: PendingActivity[] | null | undefined): boolean {
  return (pending ?? []).some((a) => a.state === SCHEDULED || RUNNING.has(a.state ?? 0) || (a.attempt ?? 1) > 1);
}

/**
 * What a task whose activity keeps failing shows: "retrying (attempt 9): last failure: ...",
 * from the pending activity with the most attempts (describe() carries them: no extra call).
 * Undefined when no activity has failed an attempt yet.
 */
export function retryingActivity(pending: PendingActivity[] | null | undefined): string | undefined {
  const retried = (pending ?? []).filter((a) => (a.attempt ?? 1) > 1 && a.lastFailure);
  if (retried.length === 0) return undefined;
  const most = retried.reduce((a, b) => ((b.attempt ?? 1) > (a.attempt ?? 1) ? b : a));
  return `retrying (attempt ${most.attempt}): last failure: ${most.lastFailure?.message || 'unknown failure'}`;
}

/** An activity's last report: its line, when, and its counts (done/total) where it gave them. */
export interface FreshestProgress extends ProgressCounts {
  message: string;
  at: string;
}

function countsOf({ done, total }: ActivityProgress): ProgressCounts {
  return { ...(done !== undefined ? { done } : {}), ...(total !== undefined ? { total } : {}) };
}

/**
 * The progress running activities report through their heartbeat details (`mcpProgress`,
 * docs/contract.md), which describe() returns with the pending activities: no extra call.
 *
 * Several activities at once: the one that heartbeated last speaks. One line, the freshest, as a
 * statusMessage is one line; a joined line would grow with the fan-out and change on every beat
 * of any of them. Only running attempts count (STARTED, CANCEL_REQUESTED): an activity waiting
 * for its next attempt has nothing new to say. Details that cannot be decoded (another codec, a
 * binary payload) or do not have the shape are not progress.
 */
export async function freshestActivityProgress(
  pending: PendingActivity[] | null | undefined,
  decode: (payloads: Payloads) => Promise<unknown>,
): Promise<FreshestProgress | undefined> {
  let freshest: FreshestProgress | undefined;
  for (const activity of pending ?? []) {
    if (!RUNNING.has(activity.state ?? 0) || !activity.heartbeatDetails?.payloads?.length) continue;
    const at = optionalTsToDate(activity.lastHeartbeatTime)?.toISOString();
    if (!at || (freshest && freshest.at >= at)) continue;
    const progress = activityProgressOf(await decode(activity.heartbeatDetails.payloads).catch(() => undefined));
    if (progress) freshest = { message: activityProgressText(progress), at, ...countsOf(progress) };
  }
  return freshest;
}
