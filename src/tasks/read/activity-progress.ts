import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { activityProgressOf, activityProgressText } from '../../contract';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type Payloads = NonNullable<PendingActivity['heartbeatDetails']>['payloads'];

/** Pending activity states in which an attempt is running (and may heartbeat). */
const RUNNING = new Set<number>([
  temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
  temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED,
]);

/**
 * An activity attempt is running, or an activity is being retried: its progress, or its attempt
 * count and last failure, may change with no history event (heartbeats and retries write none).
 */
export function activityRunning(pending: PendingActivity[] | null | undefined): boolean {
  return (pending ?? []).some((a) => RUNNING.has(a.state ?? 0) || (a.attempt ?? 1) > 1);
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
): Promise<{ message: string; at: string } | undefined> {
  let freshest: { message: string; at: string } | undefined;
  for (const activity of pending ?? []) {
    if (!RUNNING.has(activity.state ?? 0) || !activity.heartbeatDetails?.payloads?.length) continue;
    const at = optionalTsToDate(activity.lastHeartbeatTime)?.toISOString();
    if (!at || (freshest && freshest.at >= at)) continue;
    const progress = activityProgressOf(await decode(activity.heartbeatDetails.payloads).catch(() => undefined));
    if (progress) freshest = { message: activityProgressText(progress), at };
  }
  return freshest;
}
