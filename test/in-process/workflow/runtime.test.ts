/**
 * The task runtime (src/workflows/runtime.ts, installed by McpTasksPlugin's interceptor) in
 * process, against a dev server: what tasks/get sees (store.read) at each step, plus the
 * workflow's history, memo and search attributes where they tell more.
 */
import { WorkflowFailedError } from '@temporalio/client';
import {
  inputResponsesSignal,
  MAX_RESULT_BYTES,
  MCP_TASK_STATUS,
  PROGRESS_MEMO_KEY,
  type TaskProgress,
  taskProgressQuery,
} from '../../../src/contract';
import {
  accept,
  currentDetails,
  demo,
  type Harness,
  historyEventTypes,
  startHarness,
  testTool,
  workflows,
} from '../../support/workflow-harness';

const multiInput = testTool('multi_input', workflows.multi_input);
const brokenJob = testTool('broken_job', workflows.broken_job);
const protocolErrorJob = testTool('protocol_error_job', workflows.protocol_error_job);
const reusedKey = testTool('reused_key', workflows.reusedKey);
const customProtocolError = testTool('custom_protocol_error', workflows.customProtocolError);
const statusAndWait = testTool('status_and_wait', workflows.statusAndWait);
const acrossRuns = testTool('across_runs', workflows.acrossRuns);
const repeatsItself = testTool('repeats_itself', workflows.repeatsItself);

let h: Harness;

beforeAll(async () => {
  // export_report builds its CSV in the demo's buildReport activity
  const { buildReport } = await import('../../../examples/demo/activities');
  h = await startHarness({
    tools: [
      ...demo.tools,
      multiInput,
      brokenJob,
      protocolErrorJob,
      reusedKey,
      customProtocolError,
      statusAndWait,
      acrossRuns,
      repeatsItself,
    ],
    activities: { buildReport },
  });
});

afterAll(async () => {
  await h?.teardown();
});

/** McpTaskStatus as Temporal has it (what a visibility query would filter on). */
async function statusAttribute(taskId: string): Promise<string | undefined> {
  return (await h.handle(taskId).describe()).typedSearchAttributes.get(MCP_TASK_STATUS);
}

test('setStatusMessage is published to the memo, the current details and tasks/get', async () => {
  const taskId = await h.startTask(statusAndWait, { message: 'indexing 3 files' });
  const task = await h.waitFor(taskId, (t) => t.statusMessage !== undefined);
  expect(task.state).toEqual({ status: 'working' });
  expect(task.statusMessage).toBe('indexing 3 files');

  const handle = h.handle(taskId);
  const memo = (await handle.describe()).memo?.[PROGRESS_MEMO_KEY] as TaskProgress;
  expect(memo).toMatchObject({ status: 'working', statusMessage: 'indexing 3 files', inputRequests: {} });
  expect(await currentDetails(handle)).toContain('**working**: indexing 3 files');

  // a requested cancel reads as cancelling until the workflow has ended cancelled
  expect(await h.store.cancel(taskId)).toMatchObject({ state: { status: 'working' }, cancelRequested: true });
  await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  expect((await h.store.read(taskId))?.state.status).toBe('cancelled');
  expect(await statusAttribute(taskId)).toBe('cancelled');
});

test('elicit: input_required with the request under its key, answered through sendInput, then completed', async () => {
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 42, description: 'train ticket' });
  const waiting = await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  if (waiting.state.status !== 'input_required') throw new Error('unreachable');
  expect(Object.keys(waiting.state.inputRequests)).toEqual(['approval']);
  expect(waiting.state.inputRequests.approval).toMatchObject({
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Approve the expense of 42 for "train ticket"?', requestedSchema: { required: ['approved'] } },
  });
  expect(waiting.statusMessage).toBe('waiting for approval');
  expect(await currentDetails(h.handle(taskId))).toContain('**input_required**: waiting for approval\n\nwaiting for input: approval');
  expect(await statusAttribute(taskId)).toBe('input_required');

  await h.store.sendInput(taskId, undefined, { approval: accept({ approved: true, comment: 'fine' }) });
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
  expect(done.state).toEqual({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'Expense of 42 for "train ticket" was approved. Comment: fine' }], isError: false },
  });
  expect(await statusAttribute(taskId)).toBe('completed');
});

test('answers under keys not pending are ignored, even for a question asked later', async () => {
  const taskId = await h.startTask(demo.collectApprovalsTool, { approvers: ['ann', 'bob'] });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required' && 'approval-0' in t.state.inputRequests);
  const handle = h.handle(taskId);

  // the store drops keys that are not pending: nothing reaches the workflow
  await h.store.sendInput(taskId, undefined, { 'approval-1': accept({ approved: true }) });
  expect((await historyEventTypes(handle)).filter((e) => e.endsWith('SIGNALED'))).toHaveLength(0);

  // the runtime drops them too when they do reach it (a signal sent past the store): bob's
  // early "yes" must not answer his question once it is asked
  await handle.signal(inputResponsesSignal, { 'approval-1': accept({ approved: true }), junk: 1 });
  await h.store.sendInput(taskId, undefined, { 'approval-0': accept({ approved: true }) });
  // (in between, the answer to alice reads as applied: working, bob not asked yet)
  const second = await h.waitFor(
    taskId,
    (t) => t.state.status === 'completed' || (t.state.status === 'input_required' && 'approval-1' in t.state.inputRequests),
  );
  expect(second.state.status).toBe('input_required');
  expect(second.statusMessage).toBe('waiting for bob (2/2)');
  await new Promise((r) => setTimeout(r, 300));
  expect((await h.store.read(taskId))?.state.status).toBe('input_required');

  // an answer to a key already answered changes nothing either
  await handle.signal(inputResponsesSignal, { 'approval-0': accept({ approved: false }) });
  await h.store.sendInput(taskId, undefined, { 'approval-1': accept({ approved: true }) });
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
  expect(done.state).toMatchObject({ result: { content: [{ type: 'text', text: 'Approved by all 2: ann, bob.' }] } });
});

test('requestInputs: a partial answer keeps input_required and the answered key vanishes', async () => {
  const taskId = await h.startTask(multiInput, {});
  const both = await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  if (both.state.status !== 'input_required') throw new Error('unreachable');
  expect(Object.keys(both.state.inputRequests).sort()).toEqual(['first', 'second']);

  await h.store.sendInput(taskId, undefined, { second: accept({ name: 'b' }) });
  const one = await h.waitFor(taskId, (t) => t.state.status === 'input_required' && Object.keys(t.state.inputRequests).length === 1);
  if (one.state.status !== 'input_required') throw new Error('unreachable');
  expect(Object.keys(one.state.inputRequests)).toEqual(['first']);
  expect(one.state.inputRequests.first).toMatchObject({ params: { message: 'First input?' } });
  const progress = await h.handle(taskId).query(taskProgressQuery);
  expect(progress).toMatchObject({ status: 'input_required', inputRequests: { first: expect.anything() } });
  expect(Object.keys(progress.inputRequests)).toEqual(['first']);

  await h.store.sendInput(taskId, undefined, { first: accept({ name: 'a' }) });
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
  expect(done.state).toMatchObject({ result: { content: [{ type: 'text', text: 'Received 2 inputs' }] } });
});

test('asking twice under the same key is a bug: the task is stuck, naming the key, until a fix or a cancel', async () => {
  const taskId = await h.startTask(reusedKey, {});
  await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  await h.store.sendInput(taskId, undefined, { same: accept({ ok: true }) });
  const stuck = await h.waitFor(taskId, (t) => t.stuck === true);
  expect(stuck.statusMessage).toMatch(/^stuck: .*input key "same" was already used in this task/);
  expect(await statusAttribute(taskId)).not.toBe('failed');
  // no grace: terminated once a workflow task that had the cancel in hand failed
  const store = h.storeWith({ stuckCancelGraceMs: 0 });
  expect((await store.cancel(taskId))?.state.status).toBe('working');
  const cancelled = await h.waitFor(taskId, (t) => t.state.status !== 'working', { store, timeoutMs: 30_000 });
  expect(cancelled?.state).toMatchObject({
    status: 'failed',
    error: { message: expect.stringMatching(/terminated in Temporal: cancelled while stuck/) },
  });
});

test('protocolError ends the task failed with that JSON-RPC error', async () => {
  const fixture = await h.startTask(protocolErrorJob, {});
  const failed = await h.waitFor(fixture, (t) => t.state.status === 'failed');
  expect(failed.state).toEqual({ status: 'failed', error: { code: -32603, message: 'The job hit a protocol-level failure' } });
  expect(failed.statusMessage).toBe('The job hit a protocol-level failure');

  const custom = await h.startTask(customProtocolError, { code: -32042 });
  const customFailed = await h.waitFor(custom, (t) => t.state.status === 'failed');
  expect(customFailed.state).toEqual({
    status: 'failed',
    error: { code: -32042, message: 'custom protocol failure', data: { reason: 'test' } },
  });
  expect(await statusAttribute(custom)).toBe('failed');
});

test('a bug in the tool (TypeError) fails the workflow task, retried, with its own stack; the task reads stuck', async () => {
  const taskId = await h.startTask(brokenJob, {});
  const stuck = await h.waitFor(taskId, (t) => t.stuck === true);
  expect(stuck.state.status).toBe('working');
  expect(stuck.statusMessage).toMatch(/^stuck: the workflow task failed \d+ time\(s\) .*last failure: .*reading 'join'/);
  const history = await h.handle(taskId).fetchHistory();
  const failure = history.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure;
  // the original error, as thrown: its message and its stack in the tool's own code
  expect(failure?.message).toMatch(/reading 'join'/);
  expect(failure?.stackTrace).toMatch(/broken_job|test-workflows/);
  const events = await historyEventTypes(h.handle(taskId));
  expect(events).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
  await h.handle(taskId).terminate('test over');
});

test('a result over the payload limit fails the task clearly', async () => {
  const rows = 100_000; // ~2.3 MB of CSV
  const taskId = await h.startTask(demo.exportReportTool, { rows });
  const failed = await h.waitFor(taskId, (t) => t.state.status === 'failed', { timeoutMs: 30_000 });
  if (failed.state.status !== 'failed') throw new Error('unreachable');
  expect(failed.state.error.code).toBe(-32603);
  expect(failed.state.error.message).toMatch(new RegExp(`^The tool's result is \\d+ bytes, over the ${MAX_RESULT_BYTES}-byte limit`));
  const data = failed.state.error.data as { resultBytes: number; limitBytes: number };
  expect(data.limitBytes).toBe(MAX_RESULT_BYTES);
  expect(data.resultBytes).toBeGreaterThan(MAX_RESULT_BYTES);
  expect(await statusAttribute(taskId)).toBe('failed');

  // and a report under the limit comes back whole
  const small = await h.startTask(demo.exportReportTool, { rows: 3 });
  const done = await h.waitFor(small, (t) => t.state.status === 'completed');
  expect(done.state).toEqual({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'id,name,amount\n1,item-1,7.00\n2,item-2,14.00\n3,item-3,21.00' }] },
  });
});

test('continue-as-new keeps the pending question and the taskId, and completes after the answers', async () => {
  const store = h.storeWith({ historyLimit: 10 });
  const approvers = ['ann', 'bob', 'cy', 'dee'];
  const { taskId, runId: firstRunId } = await h.startTaskSnapshot(demo.collectApprovalsTool, { approvers }, store);

  for (let i = 0; i < approvers.length; i++) {
    const asked = await h.waitFor(taskId, (t) => t.state.status === 'input_required' && `approval-${i}` in t.state.inputRequests, {
      store,
    });
    if (asked.state.status !== 'input_required') throw new Error('unreachable');
    expect(Object.keys(asked.state.inputRequests)).toEqual([`approval-${i}`]);
    expect(asked.statusMessage).toBe(`waiting for ${approvers[i]} (${i + 1}/${approvers.length})`);
    expect(asked.taskId).toBe(taskId);
    await store.sendInput(taskId, undefined, { [`approval-${i}`]: accept({ approved: true }) });
  }
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed', { store });
  expect(done.state).toMatchObject({ result: { content: [{ type: 'text', text: 'Approved by all 4: ann, bob, cy, dee.' }] } });

  // it did continue as new (more than one run), under the same workflow id
  expect(done.runId).not.toBe(firstRunId);
  expect(firstRunId).toBeDefined();
  const firstRun = h.client.workflow.getHandle(taskId, firstRunId);
  expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
  // the memo and McpTaskStatus went along to the last run
  expect(await statusAttribute(taskId)).toBe('completed');
});

test('continue-as-new carries the runtime: the pending request and the statusMessage cross over as they were', async () => {
  const store = h.storeWith({ historyLimit: 1 });
  const { taskId, runId: firstRunId } = await h.startTaskSnapshot(acrossRuns, {}, store);
  const asked = await h.waitFor(taskId, (t) => t.state.status === 'input_required' && t.runId !== firstRunId, { store });
  if (asked.state.status !== 'input_required') throw new Error('unreachable');
  // the second run waits on the request the first one published (it is not asked again):
  // its own state (the query runs the second run's code) and what tasks/get reads
  const progress = await h.handle(taskId).query(taskProgressQuery);
  expect(progress.inputRequests.q).toMatchObject({ params: { message: 'asked in run 0' } });
  expect(progress.statusMessage).toBe('set in the first run');
  expect(asked.state.inputRequests.q).toMatchObject({ params: { message: 'asked in run 0' } });
  expect(asked.statusMessage).toBe('set in the first run');
  await store.sendInput(taskId, undefined, { q: accept({ ok: true }) });
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed', { store });
  expect(done.state).toMatchObject({ result: { content: [{ type: 'text', text: 'answered in run 1: true' }] } });
});

test('a workflow started without the mcpTask memo is left alone by the interceptor', async () => {
  const workflowId = `plain-${Date.now()}`;
  const handle = await h.client.workflow.start(workflows.broken_job, { workflowId, taskQueue: h.taskQueue, args: [{}] });
  try {
    // its TypeError fails workflow tasks (retried), not the workflow: Temporal's own behaviour
    const deadline = Date.now() + 10_000;
    let events: string[] = [];
    while (Date.now() < deadline && !events.includes('EVENT_TYPE_WORKFLOW_TASK_FAILED')) {
      await new Promise((r) => setTimeout(r, 200));
      events = await historyEventTypes(handle);
    }
    expect(events).toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    expect(events).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    const description = await handle.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.memo?.[PROGRESS_MEMO_KEY]).toBeUndefined();
    // and the task store does not take it for a task
    expect(await h.store.read(workflowId)).toBeUndefined();
  } finally {
    await handle.terminate('test over');
  }
});

test('progress that changes nothing writes nothing, and messages set together write once', async () => {
  const taskId = await h.startTask(repeatsItself, {});
  expect((await h.waitFor(taskId, (t) => t.state.status === 'completed')).state.status).toBe('completed');
  const events = await historyEventTypes(h.handle(taskId));
  // one write for 'the same' (three times), one for the two set in one activation
  expect(events.filter((e) => e === 'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED')).toHaveLength(2);
});

test('an input round of collect_approvals writes the memo once and McpTaskStatus not at all (the answer and the next question in one activation)', async () => {
  const taskId = await h.startTask(demo.collectApprovalsTool, { approvers: ['ann', 'bob', 'cy'] });
  const handle = h.handle(taskId);
  const count = async () => {
    const events = await historyEventTypes(handle);
    return {
      memo: events.filter((e) => e === 'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED').length,
      status: events.filter((e) => e === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES').length,
    };
  };
  await h.waitFor(taskId, (t) => t.state.status === 'input_required' && 'approval-0' in t.state.inputRequests);
  const before = await count();
  await h.store.sendInput(taskId, undefined, { 'approval-0': accept({ approved: true }) });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required' && 'approval-1' in t.state.inputRequests);
  expect(await count()).toEqual({ memo: before.memo + 1, status: before.status });
  await handle.cancel();
});
