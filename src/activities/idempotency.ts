import { Context } from '@temporalio/activity';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { ORIGINAL_RUN_HEADER } from '../contract';

/** The originalExecutionRunId the scheduling workflow sent along (ORIGINAL_RUN_HEADER), per running activity. */
const originalRuns = new WeakMap<Context, string>();

/** Reads ORIGINAL_RUN_HEADER off an activity's headers (McpTasksPlugin's activity interceptor calls it). */
export function recordOriginalRun(ctx: Context, headers: Headers): void {
  const payload = headers[ORIGINAL_RUN_HEADER];
  if (!payload) return;
  const runId = defaultPayloadConverter.fromPayload<unknown>(payload);
  if (typeof runId === 'string' && runId !== '') originalRuns.set(ctx, runId);
}

/**
 * A key for the external effect of the current activity, the same on every attempt and across a
 * Temporal reset of the task's workflow: hand it to the API you call (an Idempotency-Key header,
 * a unique row, a marker file) so a retry after a crash or a timeout, or the same step run again
 * after an operator's reset, does not do the effect twice.
 *
 * It is `<workflowId>:<runId>:<activityId>[:<scope>]`. The activityId is the sequence number of
 * the ScheduleActivityTask command in the workflow's history: the workflow decides it
 * deterministically (a replay on another worker schedules the same id) and Temporal hands the
 * same one to every retry, so neither a retry nor a worker SIGKILLed mid-attempt changes it.
 * The runId is in because activity ids start again at 1 in each run of a continue-as-new chain
 * (the workflowId, the taskId, is the same for all of them). It is the run's
 * originalExecutionRunId, which a reset keeps (the new run replays the old one's history up to
 * the reset point, so a step after it gets the same activityId); that comes in a header the task
 * runtime sets, so without McpTasksPlugin on the worker (or its interceptor in the bundle) the
 * key falls back to the current runId and changes across a reset. `scope` tells several effects
 * of one activity apart.
 */
export function idempotencyKey(scope?: string): string {
  const ctx = Context.current();
  const { workflowExecution, activityId, activityRunId } = ctx.info;
  // a standalone activity (no workflow) has its own run id instead
  const owner = workflowExecution
    ? `${workflowExecution.workflowId}:${originalRuns.get(ctx) ?? workflowExecution.runId}`
    : `activity:${activityRunId ?? 'unknown'}`;
  return `${owner}:${activityId}${scope ? `:${scope}` : ''}`;
}
