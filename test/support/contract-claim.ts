/**
 * The claim guard, as every language's helper must honour it (docs/contract.md, "The claim
 * guard"): a run started with `mcpTask.claimWithinMs` that no `mcp.claimed` signal reaches in
 * time undoes its steps and ends FAILED with type McpTaskUnclaimed. The run is started as a call
 * from a client without Tasks does (TemporalTaskStore.start with claimWithinMs), and nobody
 * claims it: its server died before it answered with the handle.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { TemporalTaskStore } from '../../src/tasks';
import { toolsFromFile } from '../../src/mcp/workflow-tools';
import { call } from './mcp';
import type { Stack } from './stack';

/** What each language's contract suite hands the tests kept in modules of their own. */
export interface ContractSuiteContext {
  lang: string;
  toolsFile: string;
  provision: string;
  stack: Stack;
  url: () => string;
  stepsOf: (taskId: string) => unknown[][];
  closed: (taskId: string) => Promise<WorkflowExecutionDescription>;
}

const CLAIM_WITHIN_MS = 2_500;

export function claimGuardTest({ lang, toolsFile, provision, stack, url, stepsOf, closed }: ContractSuiteContext): void {
  test(`a ${lang} task nobody claimed in time (its caller never got the handle): every step undone, newest first, failed McpTaskUnclaimed`, async () => {
    const tool = toolsFromFile(toolsFile).find((t) => t.name === provision)!;
    const store = new TemporalTaskStore(stack.temporal.client, {
      taskQueue: tool.taskQueue!,
      ttlMs: 60 * 60_000,
      temporalTimeoutMs: 10_000,
      historyLimit: 10_000,
      searchAttributes: true,
    });
    const { taskId } = await store.start({
      tool: provision,
      workflowType: tool.workflowType!,
      taskQueue: tool.taskQueue,
      arguments: { name: 'unclaimed', steps: 6, stepSeconds: 1 },
      summary: `unclaimed ${provision}`,
      claimWithinMs: CLAIM_WITHIN_MS,
    });
    const described = await closed(taskId);
    expect(described.status.name).toBe('FAILED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['failed']);
    const failure = (await stack.temporal.client.workflow.getHandle(taskId).fetchHistory()).events!.at(-1)!
      .workflowExecutionFailedEventAttributes!.failure!;
    expect(failure.applicationFailureInfo?.type).toBe('McpTaskUnclaimed');
    const message = `nobody claimed the task within ${CLAIM_WITHIN_MS}ms (its caller never got the handle): steps undone`;
    expect(failure.message).toBe(message);
    const task = await call(url(), 'tasks/get', { taskId });
    // as any tool failure that is not a protocol error (src/tasks/task-outcome.ts)
    expect(task).toMatchObject({ status: 'failed', error: { message: `The task failed: ${message}` } });
    // the guard fired mid-run: the steps done so far, each undone, newest first, and none after
    const steps = stepsOf(taskId) as Array<[string, number, boolean | undefined]>;
    const provisioned = steps.filter(([event]) => event === 'provision').map(([, step]) => step);
    const undone = steps.filter(([event, , applied]) => event === 'deprovision' && applied).map(([, step]) => step);
    expect(provisioned.length).toBeGreaterThan(0);
    expect(provisioned.length).toBeLessThan(6);
    expect(undone).toEqual([...provisioned].reverse());
    expect(steps.findIndex(([event]) => event === 'deprovision')).toBeGreaterThan(steps.map(([event]) => event).lastIndexOf('provision'));
  });
}
