/**
 * The task store against races Temporal can produce (an answer arriving as the task closes), and
 * the readers' view of a task's end and of a task that makes no progress (issue 31).
 */
import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TemporalTaskStore, ToolProtocolError } from '../../../src/tasks';
import { withCancelFinal } from '../../../src/tasks/task-snapshot';
import { endOf } from '../../../src/tasks/task-outcome';
import { TASK_RUNTIME_REVISION } from '../../../src/contract';
import {
  accept,
  demo,
  type Harness,
  historyEventTypes,
  sagaLedger,
  startHarness,
  testTool,
  workflows,
} from '../../support/workflow-harness';

/** Effects in place, and every undo that ran (steps and effects alike). */
const ledger = sagaLedger();
const { applied, undone } = ledger;
const activities: workflows.StoreActivities & workflows.SagaActivities = {
  ...ledger.activities,
  async applyEffect({ key }) {
    applied.add(key);
  },
  async undoEffect({ key }) {
    undone.push(key);
    applied.delete(key);
  },
  async alwaysFails({ message }) {
    throw ApplicationFailure.retryable(message, 'Unavailable');
  },
};

const tools = {
  cancelsItself: testTool('cancels_itself', workflows.cancelsItself),
  buggyUntil: testTool('buggy_until', workflows.buggyUntil),
  retriesForEver: testTool('retries_for_ever', workflows.retriesForEver),
  continuesTooBig: testTool('continues_too_big', workflows.continuesTooBig),
  failingUndos: testTool('failing_undos', workflows.failingUndos),
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: [...demo.tools, ...Object.values(tools)], activities });
});

const closeStatus = async (taskId: string) => {
  await h
    .handle(taskId)
    .result()
    .catch(() => undefined);
  return (await h.handle(taskId).describe()).status.name;
};

afterAll(async () => {
  await h?.teardown();
});

test("a tasks/update racing the task's close answers the closed state, not the stale one", async () => {
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 5, description: 'racy' });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  // the task closes between the store's read and its signal
  const racing = new Client({
    connection: h.connection,
    interceptors: {
      workflow: [
        {
          async signal(input, next) {
            await h.handle(input.workflowExecution.workflowId).terminate('closed while the answer was on its way');
            return next(input);
          },
        },
      ],
    },
  });
  const store = new TemporalTaskStore(racing, {
    taskQueue: h.taskQueue,
    ttlMs: 3_600_000,
    temporalTimeoutMs: 10_000,
    historyLimit: 10_000,
    searchAttributes: true,
  });
  const after = await store.sendInput(taskId, undefined, { approval: accept({ approved: true }) });
  expect(after?.state).toEqual({
    status: 'failed',
    error: { code: -32603, message: 'The task was terminated in Temporal: closed while the answer was on its way' },
  });
});

test("a tasks/cancel racing the task's completion answers completed (Temporal accepts a cancel of a closed workflow and ignores it)", async () => {
  const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'first', seconds: 1 });
  await h.waitFor(taskId, (t) => t.statusMessage === 'waiting 1 s');
  // the task completes between the store's read and its cancel request
  const racing = new Client({
    connection: h.connection,
    interceptors: {
      workflow: [
        {
          async cancel(input, next) {
            await h.handle(input.workflowExecution.workflowId).result();
            return next(input);
          },
        },
      ],
    },
  });
  const store = new TemporalTaskStore(racing, {
    taskQueue: h.taskQueue,
    ttlMs: 3_600_000,
    temporalTimeoutMs: 10_000,
    historyLimit: 10_000,
    searchAttributes: true,
  });
  const answer = await store.cancel(taskId);
  expect(answer?.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'first' }], isError: false } });
  expect(answer?.cancelRequested).toBeUndefined();
});

test('a cancel given the task as its caller read it (2025-11-25) answers the end when the task ended since that read', async () => {
  const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'ended first', seconds: 1 });
  const before = await h.waitFor(taskId, (t) => t.statusMessage === 'waiting 1 s');
  await h.handle(taskId).result();
  const answer = await h.store.cancel(taskId, undefined, before);
  expect(answer?.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'ended first' }], isError: false } });
  expect(answer?.cancelRequested).toBeUndefined();
});

test("a task the store starts is of today's runtime revision: its history carries no patch marker, its events are what the tool does", async () => {
  const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'lean', seconds: 1 });
  await h.handle(taskId).result();
  const { memo } = await h.handle(taskId).describe();
  expect(memo?.mcpTask).toMatchObject({ runtime: TASK_RUNTIME_REVISION });
  // start, 2 workflow tasks, the timer, one progress write ("waiting 1 s"), the final McpTaskStatus, completed
  const events = (await historyEventTypes(h.handle(taskId))).map((t) => t.replace('EVENT_TYPE_', ''));
  expect(events).toEqual([
    'WORKFLOW_EXECUTION_STARTED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'TIMER_STARTED',
    'WORKFLOW_PROPERTIES_MODIFIED',
    'TIMER_FIRED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
});

describe('the end of a task is Temporal\'s close status (docs/contract.md, "The end of a task")', () => {
  test('a workflow that throws a cancellation nobody requested closes FAILED: every reader says failed', async () => {
    const taskId = await h.startTask(tools.cancelsItself, {});
    expect(await closeStatus(taskId)).toBe('FAILED');
    const task = await h.waitFor(taskId, (t) => t.state.status !== 'working');
    expect(task.state).toEqual({
      status: 'failed',
      error: {
        code: -32603,
        message:
          "The task failed: the tool's own cancellation scope was cancelled (a timeout), not tasks/cancel: an inner scope was cancelled",
      },
    });
    expect(task.statusMessage).toBe(
      "The task failed: the tool's own cancellation scope was cancelled (a timeout), not tasks/cancel: an inner scope was cancelled",
    );
    // the finished-task cache and a fresh store (another replica) agree
    expect((await h.store.read(taskId))?.state.status).toBe('failed');
    expect((await h.storeWith({}).read(taskId))?.state.status).toBe('failed');
    // 2025-11-25 reads `cancelled` only for a task that got tasks/cancel
    expect(withCancelFinal(task).state.status).toBe('failed');
  });

  test("the synchronous path maps the same way: a self-made cancellation is the tool's failure", async () => {
    const run = h.store.run({ tool: tools.cancelsItself.name, workflowType: 'cancelsItself', arguments: {}, summary: 'sync' });
    await expect(run).rejects.toBeInstanceOf(ToolProtocolError);
    await expect(run).rejects.toMatchObject({
      error: {
        code: -32603,
        message:
          "The task failed: the tool's own cancellation scope was cancelled (a timeout), not tasks/cancel: an inner scope was cancelled",
      },
    });
  });

  test('a workflow that has not closed has no end: asking for one is an error, not a guess', async () => {
    const taskId = await h.startTask(tools.buggyUntil, { fixedAt: 0 });
    await h.waitFor(taskId, (t) => t.statusMessage === 'fixed');
    await expect(endOf(h.handle(taskId), 'RUNNING', undefined)).rejects.toThrow(/has not closed \(RUNNING\)/);
    await h.handle(taskId).terminate('test over');
  });

  test('2025-11-25: a cancel whose undo failed reads cancelled, and says which steps stayed in effect', async () => {
    const taskId = await h.startTask(tools.failingUndos, { failing: [2] });
    await h.waitFor(taskId, (t) => t.statusMessage === 'all steps applied');
    await h.store.cancel(taskId);
    expect(await closeStatus(taskId)).toBe('FAILED');
    const task = await h.waitFor(taskId, (t) => t.state.status === 'failed');
    const rev2025 = withCancelFinal(task);
    expect(rev2025.state).toEqual({
      status: 'cancelled',
      undoFailures: [{ step: 'step 2', reason: expect.stringMatching(/refuses to delete/) }],
    });
    expect(rev2025.statusMessage).toMatch(
      /^cancelled, but 1 step\(s\) could not be undone and may still be in effect: step 2 \(.*refuses to delete/,
    );
    expect(applied.has(`${taskId}:2`)).toBe(true);
  });
});

describe('a task that makes no progress says so', () => {
  test('a workflow task refused for any cause (a continue-as-new over the payload limit) reads stuck, with the failure', async () => {
    const taskId = await h.startTask(tools.continuesTooBig, {});
    const stuck = await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 20_000 });
    expect(stuck.state.status).toBe('working');
    expect(stuck.statusMessage).toMatch(/^stuck: the workflow task failed \d+ time\(s\).*last failure: .*exceeded the error limit/);
    await h.handle(taskId).terminate('test over');
  });

  test('a workflow task that only timed out (its worker gone) is not a failure: the task is not stuck', async () => {
    const queue = `${h.taskQueue}-gone`;
    const { taskId } = await h.store.start({
      tool: tools.cancelsItself.name,
      workflowType: 'cancelsItself',
      arguments: {},
      summary: 'gone',
      taskQueue: queue,
    });
    // a "worker" takes the workflow task and dies with it: never answers, so Temporal times it out (10 s)
    const taken = await h.client.withDeadline(Date.now() + 30_000, () =>
      h.client.workflowService.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: queue },
        identity: 'a worker about to die',
      }),
    );
    expect(taken.workflowExecution?.workflowId).toBe(taskId);
    const attempt = async () => (await h.handle(taskId).describe()).raw.pendingWorkflowTask?.attempt ?? 0;
    for (const deadline = Date.now() + 20_000; (await attempt()) < 2; await new Promise((r) => setTimeout(r, 200))) {
      if (Date.now() > deadline) throw new Error('the workflow task never timed out');
    }
    const after = await h.store.read(taskId);
    expect(after?.state.status).toBe('working');
    expect(after?.stuck).toBeUndefined();
    expect(after?.statusMessage).toBeUndefined();
    await h.handle(taskId).terminate('test over');
  });

  test('an activity that keeps retrying shows its attempt and last failure', async () => {
    const taskId = await h.startTask(tools.retriesForEver, {});
    const task = await h.waitFor(taskId, (t) => /attempt [3-9]/.test(t.statusMessage ?? ''), { timeoutMs: 20_000 });
    expect(task.state.status).toBe('working');
    expect(task.statusMessage).toMatch(/^retrying \(attempt \d+\): last failure: the billing API answers 503$/);
    expect(task.activityRunning).toBe(true); // a watch re-reads it: retries write no history event
    await h.handle(taskId).terminate('test over');
  });
});

describe('tasks/cancel of a stuck task', () => {
  test('a workflow task that fails only for a while: the cancel waits for it, its undos run, it ends cancelled', async () => {
    const taskId = await h.startTask(tools.buggyUntil, { fixedAt: Date.now() + 8_000 });
    await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 20_000 });
    const answer = await h.store.cancel(taskId);
    expect(answer?.state.status).toBe('working');
    const end = await h.waitFor(taskId, (t) => t.state.status !== 'working', { timeoutMs: 40_000 });
    expect(end.state).toEqual({ status: 'cancelled' });
    expect(await closeStatus(taskId)).toBe('CANCELLED');
    expect(undone).toContain(taskId);
    expect(applied.has(taskId)).toBe(false);
  });

  test('a workflow task that keeps failing after the cancel request is terminated once the grace has passed, and says its steps may remain', async () => {
    const store = h.storeWith({ stuckCancelGraceMs: 2_000 });
    const taskId = await h.startTask(tools.buggyUntil, { fixedAt: Date.now() + 3_600_000 });
    await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 20_000 });
    const cancelledAt = Date.now();
    const answer = await store.cancel(taskId);
    expect(answer?.state.status).toBe('working'); // not terminated at once: it may still run its undos
    // a replica with the default grace (60 s) says when it will be terminated, once it failed with the cancel in hand
    const told = await h.waitFor(taskId, (t) => /terminated unless/.test(t.statusMessage ?? ''), {
      store: h.storeWith({}),
      timeoutMs: 20_000,
    });
    expect(told.statusMessage).toMatch(
      /^stuck: .*a bug that the next deploy fixes; cancel requested: it is terminated unless it runs again by \d{4}-\d\d-\d\dT/,
    );
    const end = await h.waitFor(taskId, (t) => t.state.status !== 'working', { store, timeoutMs: 40_000 });
    // the bound: the grace, plus one workflow-task retry (Temporal's 10 s workflow task timeout) to show it still fails
    expect(Date.now() - cancelledAt).toBeLessThan(2_000 + 10_000 + 5_000);
    expect(end.state).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/terminated in Temporal: cancelled while stuck.*no undo could run/) },
    });
    expect(await closeStatus(taskId)).toBe('TERMINATED');
    expect(undone).not.toContain(taskId);
  });
});
