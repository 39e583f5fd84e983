import { Context } from '@temporalio/activity';
import { heartbeatKeepingProgress } from './progress';

export interface HeartbeatingOptions {
  /**
   * How often to heartbeat while the work runs. Default: half the activity's heartbeatTimeout,
   * at most 1 s. Beating more often costs nothing on the wire: the SDK throttles what it sends.
   */
  intervalMs?: number;
}

/**
 * Runs long async work that knows nothing of Temporal, heartbeating at an interval, and hands it
 * an AbortSignal that aborts when the activity is cancelled (tasks/cancel), times out or its
 * worker shuts down; pass it to fetch, child_process, streams and friends:
 *
 *     await heartbeating((signal) => fetch(url, { signal }));
 *
 * The signal is the SDK's own `Context.current().cancellationSignal`. A cancel reaches an
 * activity only in the answer to a heartbeat, so without the beats here a cancel would wait for
 * the work to end. The work is awaited, not abandoned: its clean-up runs before the activity
 * reports back (a workflow waiting with WAIT_CANCELLATION_COMPLETED undoes only after that).
 * The AbortError a cancelled fetch throws is taken by the SDK as the activity's cancellation.
 * The beats resend the details last heartbeated (reportProgress()'s progress and any checkpoint
 * of the activity's own, or the previous attempt's before this one sent any), so they never
 * erase a checkpoint.
 */
export async function heartbeating<T>(work: (signal: AbortSignal) => Promise<T>, options: HeartbeatingOptions = {}): Promise<T> {
  const ctx = Context.current();
  const timeout = ctx.info.heartbeatTimeoutMs;
  const intervalMs = options.intervalMs ?? Math.min(1000, timeout ? timeout / 2 : 1000);
  heartbeatKeepingProgress(ctx);
  const timer = setInterval(() => heartbeatKeepingProgress(ctx), intervalMs);
  try {
    return await work(ctx.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}
