import { Context } from '@temporalio/activity';
import { ACTIVITY_PROGRESS_KEY, type ActivityHeartbeatDetails, type ActivityProgress, activityProgressOf } from '../contract';

/**
 * The last details each running activity heartbeated. Temporal keeps only the latest heartbeat's
 * details (a heartbeat without details clears them), so the keep-alive beats of `heartbeating()`
 * resend these instead of erasing the progress. Weak: gone with the activity's context.
 */
const lastDetails = new WeakMap<Context, ActivityHeartbeatDetails>();

/**
 * Reports the current activity's progress: the task's statusMessage reads it on the next
 * tasks/get (and subscribers see it) while the activity runs, e.g.
 * `reportProgress('exporting rows', { done: 4000, total: 10000 })` → "exporting rows (4,000 of 10,000)".
 *
 * It is a heartbeat (details `{ mcpProgress: { message, done?, total? } }`, docs/contract.md), so
 * it also keeps the activity alive and lets a cancel reach it. The SDK sends heartbeats at most
 * every 80% of the activity's heartbeatTimeout (30 s without one): give long activities a
 * heartbeatTimeout of a few seconds, or progress shows that late.
 */
export function reportProgress(message: string, counts: Omit<ActivityProgress, 'message'> = {}): void {
  const ctx = Context.current();
  const details: ActivityHeartbeatDetails = { [ACTIVITY_PROGRESS_KEY]: { message, ...pick(counts) } };
  lastDetails.set(ctx, details);
  ctx.heartbeat(details);
}

/**
 * The progress the previous attempt of this activity reported last (a retry after a crash or a
 * timeout), or undefined on a first attempt: its `done` is a checkpoint to resume from.
 */
export function previousProgress(): ActivityProgress | undefined {
  return activityProgressOf(Context.current().info.heartbeatDetails);
}

/** A heartbeat that keeps the progress reported so far (heartbeating() beats with it). */
export function heartbeatKeepingProgress(ctx: Context = Context.current()): void {
  ctx.heartbeat(lastDetails.get(ctx));
}

function pick({ done, total }: Omit<ActivityProgress, 'message'>): Omit<ActivityProgress, 'message'> {
  return { ...(done !== undefined ? { done } : {}), ...(total !== undefined ? { total } : {}) };
}
