/**
 * The workflow interceptor module McpTasksPlugin adds to a worker: every workflow started as an
 * MCP task (its memo carries `mcpTask`) runs inside the task runtime, so tool workflows are
 * plain functions. Other workflows on the same worker run as they are (only their activities get
 * the ORIGINAL_RUN_HEADER, which idempotencyKey() reads and nothing else).
 */
import {
  type ActivityInput,
  defaultPayloadConverter,
  type GetLogAttributesInput,
  type LocalActivityInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  workflowInfo,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { ORIGINAL_RUN_HEADER, TASK_MEMO_KEY, type TaskMemo } from '../contract';
import { type RuntimeCarry, runAsTask } from './runtime';
import { armClaimGuard } from './claim-guard';

class TaskRuntimeInterceptor implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (!workflowInfo().memo?.[TASK_MEMO_KEY]) return next(input);
    // a continued run gets the runtime's state as a second argument; the tool sees only its own
    const [args, carry] = input.args as [unknown, RuntimeCarry | undefined];
    armClaimGuard(carry === undefined, carry?.claimDeadline);
    return runAsTask(() => next({ ...input, args: [args] }), carry);
  }
}

/** Every log line of a task's workflow names its tool (the workflow type is the function's name). */
class ToolLogInterceptor implements WorkflowOutboundCallsInterceptor {
  getLogAttributes(
    input: GetLogAttributesInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>,
  ): Record<string, unknown> {
    const tool = (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.tool;
    return next(tool ? { ...input, tool } : input);
  }
}

/**
 * Every activity learns the run its workflow was originally started as (a reset keeps it, the
 * runId it sees changes), for idempotencyKey(). Headers are not compared on replay: histories
 * recorded without it replay unchanged.
 */
class OriginalRunHeaderInterceptor implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return next({ ...input, headers: withOriginalRun(input.headers) });
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    return next({ ...input, headers: withOriginalRun(input.headers) });
  }
}

function withOriginalRun(headers: ActivityInput['headers']): ActivityInput['headers'] {
  return { ...headers, [ORIGINAL_RUN_HEADER]: defaultPayloadConverter.toPayload(workflowInfo().originalExecutionRunId) };
}

/**
 * Present in a workflow bundle exactly when this module is one of its interceptor modules (no
 * workflow code imports this module): McpTasksPlugin looks for it in a prebuilt bundle.
 */
export const TASK_RUNTIME_MARKER = 'mcp-temporal-tasks:task-runtime-interceptors';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new TaskRuntimeInterceptor()],
  outbound: [new ToolLogInterceptor(), new OriginalRunHeaderInterceptor()],
});
