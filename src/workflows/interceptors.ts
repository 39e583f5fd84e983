/**
 * The workflow interceptor module McpTasksPlugin adds to a worker: every workflow started as an
 * MCP task (its memo carries `mcpTask`) runs inside the task runtime, so tool workflows are
 * plain functions. Other workflows on the same worker are left alone.
 */
import {
  type GetLogAttributesInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  workflowInfo,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { TASK_MEMO_KEY, type TaskMemo } from '../contract';
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
  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    const tool = (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.tool;
    return next(tool ? { ...input, tool } : input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new TaskRuntimeInterceptor()], outbound: [new ToolLogInterceptor()] });
