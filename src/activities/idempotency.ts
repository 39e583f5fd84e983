import { Context } from '@temporalio/activity';

/**
 * A key for the external effect of the current activity, the same on every attempt: hand it to
 * the API you call (an Idempotency-Key header, a unique row, a marker file) so a retry after a
 * crash or a timeout does not do the effect twice.
 *
 * It is `<workflowId>:<runId>:<activityId>[:<scope>]`. The activityId is the sequence number of
 * the ScheduleActivityTask command in the workflow's history: the workflow decides it
 * deterministically (a replay on another worker schedules the same id) and Temporal hands the
 * same one to every retry, so neither a retry nor a worker SIGKILLed mid-attempt changes it.
 * The runId is in because activity ids start again at 1 in each run of a continue-as-new chain
 * (the workflowId, the taskId, is the same for all of them). `scope` tells several effects of
 * one activity apart.
 */
export function idempotencyKey(scope?: string): string {
  const { workflowExecution, activityId, activityRunId } = Context.current().info;
  // a standalone activity (no workflow) has its own run id instead
  const owner = workflowExecution ? `${workflowExecution.workflowId}:${workflowExecution.runId}` : `activity:${activityRunId ?? 'unknown'}`;
  return `${owner}:${activityId}${scope ? `:${scope}` : ''}`;
}
