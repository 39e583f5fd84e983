import { Context } from '@temporalio/activity';

/**
 * The details each running activity heartbeated last: its checkpoint. Temporal keeps only the
 * latest heartbeat's details, and a heartbeat without details erases them, so every beat this
 * package sends (heartbeating()'s keep-alive, reportProgress()) starts from these instead of
 * erasing what the activity saved there, e.g. `heartbeat({ offset: 500 })` to resume from.
 * Weak: gone with the activity's context.
 */
const lastDetails = new WeakMap<Context, { details: unknown }>();

/**
 * Records every heartbeat of `ctx`'s activity from now on (the activity's own `heartbeat()`
 * included), starting from the previous attempt's details: a keep-alive beat before the new
 * attempt saved anything must not erase the checkpoint it resumes from. Idempotent.
 * McpTasksPlugin's activity interceptor calls it when an activity starts; the helpers call it
 * again for workers without the plugin, where heartbeats sent before the first helper call are
 * not seen.
 */
export function trackHeartbeats(ctx: Context): void {
  if (lastDetails.has(ctx)) return;
  const record = { details: ctx.info.heartbeatDetails as unknown };
  lastDetails.set(ctx, record);
  const send = ctx.heartbeat;
  // `heartbeat` is an instance property the SDK's `heartbeat()` shortcut calls too
  Object.defineProperty(ctx, 'heartbeat', {
    value: (details?: unknown) => {
      record.details = details;
      send(details);
    },
  });
}

/** What the current attempt (or, before it heartbeated, the previous one) heartbeated last. */
export function lastHeartbeatDetails(ctx: Context): unknown {
  trackHeartbeats(ctx);
  return lastDetails.get(ctx)!.details;
}
