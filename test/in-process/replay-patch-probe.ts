/**
 * Test-only workflow interceptor module (test/in-process/replay.test.ts bundles it): a runtime patch that
 * does not exist, whose new path emits one command (a 1 ms timer) before the tool starts, at the
 * revision the bundle defines. It shows what the next patch does to the recorded histories.
 */
import { type Next, sleep, type WorkflowExecuteInput, type WorkflowInboundCallsInterceptor, workflowInfo } from '@temporalio/workflow';
import { TASK_MEMO_KEY } from '../../src/contract';
import { applies } from '../../src/workflows/patches';

/** Set by the test's bundle (webpack's DefinePlugin). */
declare const PROBE_PATCH_REVISION: number;

class ProbePatchInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (workflowInfo().memo?.[TASK_MEMO_KEY] && applies({ id: 'mcp-tasks.replay-probe', revision: PROBE_PATCH_REVISION })) await sleep(1);
    return next(input);
  }
}

export const interceptors = () => ({ inbound: [new ProbePatchInterceptor()] });
