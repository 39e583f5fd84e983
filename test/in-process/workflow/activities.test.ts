/**
 * The `./activity` helpers on the real dev server, with McpTasksPlugin on the worker (issue 31,
 * items 8 and 12b): a retried activity resumes from the checkpoint it heartbeated although
 * heartbeating()'s keep-alive beats and reportProgress() came after it, and idempotencyKey() is
 * the same after a Temporal reset of the workflow (a new run) while it differs between the runs
 * of a continue-as-new chain.
 */
import { Context, heartbeat } from '@temporalio/activity';
import { randomUUID } from 'node:crypto';
import { heartbeating, idempotencyKey, reportProgress } from '../../../src/activities';
import { demo, type Harness, startHarness, workflows } from '../../support/workflow-harness';

/** The heartbeat details each attempt of `checkpointed` started from, by plan. */
const resumedFrom: Record<string, unknown[]> = {};
/** What each recordKey saw, by workflow id. */
const keys: Record<string, { key: string; runId: string }[]> = {};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
// longer than the SDK's heartbeat throttle (80% of the 1 s heartbeatTimeout): the beats before it reach Temporal
const THROTTLE_PASSES = 2000;

const activities: workflows.CheckpointActivities & workflows.KeyActivities = {
  async checkpointed(plan) {
    const { attempt, heartbeatDetails } = Context.current().info;
    (resumedFrom[plan] ??= []).push(heartbeatDetails);
    if (attempt === 1) {
      heartbeat({ offset: 500 }); // the activity's own checkpoint
      if (plan === 'keepalive') await heartbeating(() => pause(THROTTLE_PASSES), { intervalMs: 100 });
      if (plan === 'progress') reportProgress('copying rows', { done: 500, total: 1000 });
      await pause(THROTTLE_PASSES);
      throw new Error(`attempt 1 of ${plan} fails after its checkpoint`);
    }
    if (attempt === 2 && plan === 'resumed') {
      // a second attempt that beats before saving anything must not erase the first one's checkpoint
      await heartbeating(() => pause(THROTTLE_PASSES), { intervalMs: 100 });
      throw new Error('attempt 2 fails before a checkpoint of its own');
    }
  },
  async recordKey() {
    const { workflowExecution } = Context.current().info;
    (keys[workflowExecution!.workflowId] ??= []).push({ key: idempotencyKey(), runId: workflowExecution!.runId });
  },
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: demo.tools, activities });
});

afterAll(async () => {
  await h?.teardown();
});

const run = <A extends unknown[]>(workflow: (...args: A) => Promise<void>, ...args: A) =>
  h.client.workflow.start(workflow, { taskQueue: h.taskQueue, workflowId: `activities-${randomUUID()}`, args });

describe('a retried activity resumes from its checkpoint (item 8)', () => {
  test("heartbeating()'s keep-alive beats after the activity's own heartbeat keep it", async () => {
    await (await run(workflows.retriedCheckpoint, { plan: 'keepalive' })).result();
    expect(resumedFrom.keepalive).toEqual([undefined, { offset: 500 }]);
  });

  test('reportProgress() merges its progress into the checkpoint instead of replacing it', async () => {
    await (await run(workflows.retriedCheckpoint, { plan: 'progress' })).result();
    expect(resumedFrom.progress).toEqual([undefined, { offset: 500, mcpProgress: { message: 'copying rows', done: 500, total: 1000 } }]);
  });

  test("a next attempt's keep-alive beats resend the previous attempt's checkpoint until it saves its own", async () => {
    await (await run(workflows.retriedCheckpoint, { plan: 'resumed' })).result();
    expect(resumedFrom.resumed).toEqual([undefined, { offset: 500 }, { offset: 500 }]);
  });
});

describe('idempotencyKey() (item 12b)', () => {
  test('is the same after a reset of the workflow (a new run re-runs the step)', async () => {
    const handle = await run(workflows.keyedStep, {});
    await handle.result();
    const firstRun = handle.firstExecutionRunId;
    const { events } = await handle.fetchHistory();
    const firstTaskCompleted = events!.find((e) => e.workflowTaskCompletedEventAttributes)!.eventId;
    const reset = await h.client.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: handle.workflowId, runId: firstRun },
      reason: 'issue 31 item 12b: re-run the step',
      workflowTaskFinishEventId: firstTaskCompleted,
      requestId: randomUUID(),
    });
    await h.client.workflow.getHandle(handle.workflowId, reset.runId!).result();

    const seen = keys[handle.workflowId];
    expect(seen.map((s) => s.runId)).toEqual([firstRun, reset.runId]); // the step ran again, in the reset's new run
    expect(seen.map((s) => s.key)).toEqual([`${handle.workflowId}:${firstRun}:1`, `${handle.workflowId}:${firstRun}:1`]);
  });

  test('differs between the runs of a continue-as-new chain (activity ids start again at 1)', async () => {
    const handle = await run(workflows.keyedStep, { continueRuns: 1 });
    await h.client.workflow.getHandle(handle.workflowId).result();
    const seen = keys[handle.workflowId];
    expect(seen).toHaveLength(2);
    expect(seen[1].runId).not.toBe(seen[0].runId);
    expect(seen.map((s) => s.key)).toEqual(seen.map((s) => `${handle.workflowId}:${s.runId}:1`));
  });
});
