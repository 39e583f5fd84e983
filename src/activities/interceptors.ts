/**
 * The activity interceptor McpTasksPlugin adds to a worker: when an activity starts, its
 * heartbeats are recorded (so this package's beats keep its checkpoint) and the run the
 * scheduling workflow was originally started as is read from its header (so idempotencyKey()
 * survives a reset).
 */
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptors, Next } from '@temporalio/worker';
import { trackHeartbeats } from './checkpoint';
import { recordOriginalRun } from './idempotency';

export function activityInterceptors(ctx: Context): ActivityInterceptors {
  const inbound: ActivityInboundCallsInterceptor = {
    execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
      trackHeartbeats(ctx);
      recordOriginalRun(ctx, input.headers);
      return next(input);
    },
  };
  return { inbound };
}
