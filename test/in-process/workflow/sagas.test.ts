/**
 * A task's end tells the truth about its effects (issue 20): a cancel requested at any moment
 * before the completion is recorded ends the task cancelled with every step undone; a
 * continue-as-new undoes nothing and hands the undos to the next run; every undo is attempted;
 * a bug leaves the task visibly stuck instead of failing it. The effects ledger below is what
 * the activities did to the world.
 */
import { MCP_TASK_STATUS } from '../../../src/contract';
import { CANCELLING_MESSAGE } from '../../../src/tasks';
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

/** The effects ledger: per task, the steps in place and the undos that ran (in order). */
const { activities, effectsOf, undosOf } = sagaLedger();

const tools = {
  sagaThenWait: testTool('saga_then_wait', workflows.sagaThenWait),
  sagaInRuns: testTool('saga_in_runs', workflows.sagaInRuns),
  closureSagaInRuns: testTool('closure_saga_in_runs', workflows.closureSagaInRuns),
  failingUndos: testTool('failing_undos', workflows.failingUndos),
  buggy: testTool('buggy_after_status', workflows.buggyAfterStatus),
  answerThenSpin: testTool('answer_then_spin', workflows.answerThenSpin),
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: [...demo.tools, ...Object.values(tools)], activities });
});

afterAll(async () => {
  await h?.teardown();
});

const closedAs = async (taskId: string) => {
  await h
    .handle(taskId)
    .result()
    .catch(() => undefined);
  const d = await h.handle(taskId).describe();
  return { status: d.status.name, mcpStatus: d.typedSearchAttributes.get(MCP_TASK_STATUS) };
};

describe('a cancel before the completion is recorded', () => {
  test('after the saga body returned: every step is undone and the task ends cancelled', async () => {
    const taskId = await h.startTask(tools.sagaThenWait, { steps: 2, waitMs: 600_000 });
    await h.waitFor(taskId, (t) => t.statusMessage === 'steps done');
    expect(effectsOf(taskId)).toEqual([`${taskId}:1`, `${taskId}:2`]);

    const answer = await h.store.cancel(taskId);
    // not reported cancelled before the workflow has undone the steps
    expect(answer).toMatchObject({ state: { status: 'working' }, statusMessage: CANCELLING_MESSAGE, cancelRequested: true });
    expect(await closedAs(taskId)).toEqual({ status: 'CANCELLED', mcpStatus: 'cancelled' });
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    expect(effectsOf(taskId)).toEqual([]);
    expect(undosOf(taskId)).toEqual([`${taskId}:2`, `${taskId}:1`]);
  });

  test('in the last step, which finishes anyway: the step is undone, nothing stays', async () => {
    const taskId = await h.startTask(tools.sagaThenWait, { steps: 1, stepMs: 1500 });
    await h.waitFor(taskId, (t) => t.statusMessage === 'step 1/1');
    await new Promise((r) => setTimeout(r, 700));
    await h.store.cancel(taskId);
    expect(await closedAs(taskId)).toEqual({ status: 'CANCELLED', mcpStatus: 'cancelled' });
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    expect(undosOf(taskId)).toEqual([`${taskId}:1`]);
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('in the same workflow task as the answer that completes it: cancelled, not approved', async () => {
    const queue = `${h.taskQueue}-paused`;
    const { taskId } = await h.store.start({
      tool: 'approve_expense',
      workflowType: 'approveExpense',
      arguments: { amount: 5, description: 'race' },
      summary: 'race',
      taskQueue: queue,
    });
    await h.withWorker(queue, () => h.waitFor(taskId, (t) => t.state.status === 'input_required'));
    // no worker now: the answer and the cancel are both recorded before the workflow runs again
    await h.store.sendInput(taskId, undefined, { approval: accept({ approved: true }) });
    await h.store.cancel(taskId);
    const end = await h.withWorker(queue, () => closedAs(taskId));
    expect(end).toEqual({ status: 'CANCELLED', mcpStatus: 'cancelled' });
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    // a task of runtime revision 2 (the lean end, no patch markers) races like the older ones
    expect(await historyEventTypes(h.handle(taskId))).not.toContain('EVENT_TYPE_MARKER_RECORDED');
  });

  test('while the workflow task that completes it runs (Temporal refuses that completion): cancelled', async () => {
    const taskId = await h.startTask(tools.answerThenSpin, { spinIterations: 150_000_000 });
    await h.waitFor(taskId, (t) => t.state.status === 'input_required');
    await h.store.sendInput(taskId, undefined, { go: accept({ ok: true }) });
    // the worker is now computing the completion; the cancel lands during that workflow task
    await new Promise((r) => setTimeout(r, 150));
    await h.store.cancel(taskId);
    expect(await closedAs(taskId)).toEqual({ status: 'CANCELLED', mcpStatus: 'cancelled' });
    const events = await historyEventTypes(h.handle(taskId));
    // the race really happened: the completion was refused for the new event (else this proves nothing)
    expect(events).toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    expect(events).not.toContain('EVENT_TYPE_MARKER_RECORDED'); // runtime revision 2
  });

  test('a task that completed first reads completed, and the cancel answer says so', async () => {
    const taskId = await h.startTask(tools.sagaThenWait, { steps: 1 });
    await h.waitFor(taskId, (t) => t.state.status === 'completed');
    const answer = await h.store.cancel(taskId);
    expect(answer?.state.status).toBe('completed');
    expect(answer?.cancelRequested).toBeUndefined();
    expect(effectsOf(taskId)).toEqual([`${taskId}:1`]);
  });
});

describe('continue-as-new in a saga', () => {
  const chained = () => h.storeWith({ historyLimit: 1 }); // every turn in a run of its own

  test('undoes nothing: the task completes with every step of every run in place', async () => {
    const { taskId, runId: firstRunId } = await h.startTaskSnapshot(tools.sagaInRuns, { turns: 3 }, chained());
    const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
    expect(done.runId).not.toBe(firstRunId);
    expect(effectsOf(taskId)).toEqual([1, 2, 3].map((i) => `${taskId}:${i}`));
    expect(undosOf(taskId)).toEqual([]);
  });

  test('a cancel during a turn, before its continue-as-new, ends the chain cancelled with the earlier runs undone', async () => {
    const taskId = await h.startTask(tools.sagaInRuns, { turns: 5, stepMs: 1200 }, chained());
    await h.waitFor(taskId, (t) => t.statusMessage === 'turn 3/5', { timeoutMs: 30_000 });
    await h.store.cancel(taskId); // turn 3's step finishes anyway, then the run would continue as new
    expect(await closedAs(taskId)).toEqual({ status: 'CANCELLED', mcpStatus: 'cancelled' });
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    expect(undosOf(taskId)).toEqual([3, 2, 1].map((i) => `${taskId}:${i}`));
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('undos that are closures cannot travel: the task is stuck with a clear error, and a cancel still undoes its step and ends it cancelled', async () => {
    const taskId = await h.startTask(tools.closureSagaInRuns, { turns: 2 }, chained());
    const stuck = await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 30_000 });
    expect(stuck.state.status).toBe('working');
    expect(stuck.statusMessage).toMatch(/^stuck: .*cannot continue as new with undos that are closures \(step 1\).*undoActivity/);
    // the cancel is not a termination: with it in hand the workflow stops before continuing as
    // new, so it can run again, and it undoes the step (issue 31, item 4)
    const answer = await h.store.cancel(taskId);
    expect(answer?.state.status).toBe('working');
    const end = await h.waitFor(taskId, (t) => t.state.status !== 'working', { timeoutMs: 30_000 });
    expect(end.state).toEqual({ status: 'cancelled' });
    expect(effectsOf(taskId)).toEqual([]);
    expect(undosOf(taskId)).toEqual([`${taskId}:1`]);
  });
});

describe('undos that fail', () => {
  test('after a cancel: every undo is attempted and the task fails naming the ones that failed', async () => {
    const taskId = await h.startTask(tools.failingUndos, { failing: [2] });
    await h.waitFor(taskId, (t) => t.statusMessage === 'all steps applied');
    await h.store.cancel(taskId);
    expect(await closedAs(taskId)).toEqual({ status: 'FAILED', mcpStatus: 'failed' });
    const task = await h.store.read(taskId);
    expect(task?.state).toMatchObject({
      status: 'failed',
      error: {
        code: -32603,
        message: expect.stringMatching(/1 step\(s\) could not be undone after a cancel.*step 2: .*refuses to delete/),
        data: { undoFailures: [{ step: 'step 2' }] },
      },
    });
    expect(task?.statusMessage).toMatch(/step 2/);
    expect(undosOf(taskId)).toEqual([`${taskId}:3`, `${taskId}:1`]);
    expect(effectsOf(taskId)).toEqual([`${taskId}:2`]);
  });

  test('after a failure: every undo is attempted, the failure keeps both reasons', async () => {
    const taskId = await h.startTask(tools.failingUndos, { failing: [1, 3], thenFail: true });
    const task = await h.waitFor(taskId, (t) => t.state.status === 'failed');
    expect(task.state).toMatchObject({
      error: { message: expect.stringMatching(/2 step\(s\) could not be undone after the last check failed.*step 3: .*step 1: /) },
    });
    expect(undosOf(taskId)).toEqual([`${taskId}:2`]);
  });
});

test('a bug in workflow code leaves the task running and visibly stuck, not failed', async () => {
  const taskId = await h.startTask(tools.buggy, {});
  const stuck = await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 30_000 });
  expect(stuck.state.status).toBe('working');
  expect(stuck.statusMessage).toMatch(/^stuck: the workflow task failed \d+ time\(s\).*last failure: .*boom/);
  expect((await h.handle(taskId).describe()).status.name).toBe('RUNNING');
  await h.handle(taskId).terminate('test over');
});

test('listOwned lists a continue-as-new chain once, as its latest run', async () => {
  const store = h.storeWith({ historyLimit: 1, ownerKey: 'test-owner-key' });
  const owner = `alice-${Date.now()}`;
  const { taskId, runId: firstRunId } = await store.start({
    tool: 'saga_in_runs',
    workflowType: 'sagaInRuns',
    arguments: { turns: 3 },
    owner,
    summary: 'chain',
  });
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed', { store, principal: owner });
  expect(done.runId).not.toBe(firstRunId);
  // visibility lags: wait until every run of the chain is visible, then list
  let page = await store.listOwned(owner);
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; page = await store.listOwned(owner)) {
    const runs = await h.client.workflow.list({ query: `WorkflowId = "${taskId}"` });
    let count = 0;
    for await (const _ of runs) count++;
    if (count >= 3 && page.tasks.length > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(page.tasks.map((t) => t.taskId)).toEqual([taskId]);
  expect(page.tasks[0].runId).toBe(done.runId);
});
