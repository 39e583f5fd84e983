/**
 * The workflow interceptor module McpTasksPlugin adds to a worker: every workflow started as an
 * MCP task (its memo carries `mcpTask`) runs inside the task runtime, so tool workflows are
 * plain functions. Other workflows on the same worker are left alone.
 */
import { type Next, type WorkflowExecuteInput, type WorkflowInboundCallsInterceptor, type WorkflowInterceptorsFactory, workflowInfo } from '@temporalio/workflow';
import { TASK_MEMO_KEY } from '../contract';
import { type RuntimeCarry, runAsTask } from './runtime';

class TaskRuntimeInterceptor implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (!workflowInfo().memo?.[TASK_MEMO_KEY]) return next(input);
    // a continued run gets the runtime's state as a second argument; the tool sees only its own
    const [args, carry] = input.args as [unknown, RuntimeCarry | undefined];
    return runAsTask(() => next({ ...input, args: [args] }), carry);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new TaskRuntimeInterceptor()] });
