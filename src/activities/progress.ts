import { Context } from '@temporalio/activity';
import { ACTIVITY_PROGRESS_KEY, type ActivityProgress, activityProgressOf } from '../contract';
import { lastHeartbeatDetails } from './checkpoint';

/**
 * Reports the current activity's progress: the task's statusMessage reads it on the next
 * tasks/get (and subscribers see it) while the activity runs, e.g.
 * `reportProgress('exporting rows', { done: 4000, total: 10000 })` → "exporting rows (4,000 of 10,000)".
 *
 * It is a heartbeat (details `{ mcpProgress: { message, done?, total? } }`, docs/contract.md), so
 * it also keeps the activity alive and lets a cancel reach it. The progress is merged into the
 * last details the activity heartbeated: its other keys (a checkpoint such as `{ offset: 500 }`)
 * stay. Details that are not an object (a bare number) cannot hold progress beside them: that
 * throws rather than erase the checkpoint. The SDK sends heartbeats at most every 80% of the
 * activity's heartbeatTimeout (30 s without one): give long activities a heartbeatTimeout of a
 * few seconds, or progress shows that late.
 */
export function reportProgress(message: string, counts: Omit<ActivityProgress, 'message'> = {}): void {
  const ctx = Context.current();
  const last = lastHeartbeatDetails(ctx);
  if (last !== undefined && !isPlainObject(last)) {
    throw new TypeError(
      `reportProgress: the activity's last heartbeat details (${JSON.stringify(last)}) are not an object, so the progress cannot be kept beside them; heartbeat an object (e.g. { offset: 500 }) instead`,
    );
  }
  ctx.heartbeat({ ...last, [ACTIVITY_PROGRESS_KEY]: { message, ...pick(counts) } });
}

/**
 * The progress the previous attempt of this activity reported last (a retry after a crash or a
 * timeout), or undefined on a first attempt: its `done` is a checkpoint to resume from.
 */
export function previousProgress(): ActivityProgress | undefined {
  return activityProgressOf(Context.current().info.heartbeatDetails);
}

/** A heartbeat that keeps the details heartbeated so far, progress and checkpoint (heartbeating() beats with it). */
export function heartbeatKeepingProgress(ctx: Context = Context.current()): void {
  ctx.heartbeat(lastHeartbeatDetails(ctx));
}

/** JSON-object-like: what a heartbeat's details decode to when they are an object (no array, Map, Date). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function pick({ done, total }: Omit<ActivityProgress, 'message'>): Omit<ActivityProgress, 'message'> {
  return { ...(done !== undefined ? { done } : {}), ...(total !== undefined ? { total } : {}) };
}
