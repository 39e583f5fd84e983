/** What Temporal holds about a task, and how a task ends: owners hashed, status recorded, bugs fail, abandoned calls cancel. */
import { principalOf } from '../../src/mcp/core/negotiation';
import { call, pollTask, rpc } from '../support/mcp';
import { useStack } from '../support/stack';
import { inputResponsesSignal } from '../../src/contract';
import type { TestTemporal } from '../support/temporal';
import { CANCELLING_MESSAGE } from '../../src/tasks';
import { listedIds, waitFor } from '../support/wait';
import { registry } from '../../src/tasks/metrics';
import { parseSamples, sampleSum } from '../support/prometheus';

let temporal: TestTemporal;
let url: string;
let authUrl: string;
const alice = { authorization: 'Bearer tok-alice-0123456789' };

// a stuck task's cancel is given 1 s to run its undos (default 60 s) before it is terminated
const stack = useStack({ config: { pollIntervalMs: 250, handleWaitMs: 3000, stuckCancelGraceMs: 1000 } });
beforeAll(async () => {
  ({ temporal, url } = stack);
  ({ url: authUrl } = await stack.serve({ tokens: 'alice:tok-alice-0123456789', config: { ownerKey: 'a-test-owner-key-0123456789' } }));
});

const describeTask = (taskId: string) => temporal.client.workflow.getHandle(taskId).describe();
const statusAttribute = async (taskId: string) => (await describeTask(taskId)).searchAttributes.McpTaskStatus;

describe('what Temporal stores', () => {
  test('the principal is stored only as a keyed hash: not in memo, search attributes or summary', async () => {
    const { taskId } = await call(
      authUrl,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'mine', seconds: 30 } },
      { headers: alice },
    );
    const d = await describeTask(taskId);
    const stored = JSON.stringify({ memo: d.memo, sa: d.searchAttributes, summary: await d.staticSummary?.() });
    expect(stored).not.toMatch(/alice/);
    expect(d.searchAttributes.McpOwner?.[0]).toMatch(/^o1_[A-Za-z0-9_-]{43}$/);
    expect((await call(authUrl, 'tasks/get', { taskId }, { headers: alice })).status).toBe('working'); // and it is still hers
    await call(authUrl, 'tasks/cancel', { taskId }, { headers: alice });
  });

  test('a task is bound to the end user the token names (OAuth sub), else to the client id', () => {
    const ctx = (authInfo: unknown) => ({ http: { authInfo } }) as never;
    expect(principalOf(ctx({ clientId: 'app', extra: { sub: 'u-1' } }))).toBe('user:u-1');
    expect(principalOf(ctx({ clientId: 'app', extra: { user: 'ann' } }))).toBe('user:ann');
    expect(principalOf(ctx({ clientId: 'app' }))).toBe('client:app');
    expect(principalOf(ctx(undefined))).toBeUndefined();
    // one client acting for two users: two owners
    expect(principalOf(ctx({ clientId: 'app', extra: { sub: 'u-1' } }))).not.toBe(
      principalOf(ctx({ clientId: 'app', extra: { sub: 'u-2' } })),
    );
  });
});

describe('McpTaskStatus follows the task to its end', () => {
  test.each([
    ['completed', 'wait_and_echo', { text: 'x', seconds: 0 }],
    ['failed', 'protocol_error_job', {}],
    ['completed', 'failing_job', {}], // a tool error (isError) is a completed task
  ])('%s: %s', async (status, name, args) => {
    const { taskId } = await call(url, 'tools/call', { name, arguments: args });
    expect((await pollTask(url, taskId)).status).toBe(status);
    expect(await statusAttribute(taskId)).toEqual([status]);
  });

  test('cancelled', async () => {
    const { taskId } = await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 600 } });
    await call(url, 'tasks/cancel', { taskId });
    await temporal.client.workflow
      .getHandle(taskId)
      .result()
      .catch(() => undefined);
    expect(await statusAttribute(taskId)).toEqual(['cancelled']);
  });
});

describe('a bug in a tool workflow', () => {
  test('a TypeError leaves the task working and visibly stuck, saying what broke; tasks/cancel ends it failed once it still fails past the grace', async () => {
    const stuckSeen = async () =>
      sampleSum(parseSamples(await registry.metrics()), 'mcp_tasks_stuck_tasks_seen_total', { tool: 'broken_job' });
    const stuckBefore = await stuckSeen();
    const { taskId } = await call(url, 'tools/call', { name: 'broken_job', arguments: {} });
    const task = await pollTask(url, taskId, (t) => /^stuck: /.test(t.statusMessage ?? ''), 20_000);
    expect(task.status).toBe('working');
    expect(await stuckSeen()).toBe(stuckBefore + 1); // the metric the McpTasksStuckTask alert reads
    expect(task.statusMessage).toMatch(/last failure: .*reading 'join'/);
    expect(await statusAttribute(taskId)).toEqual(['working']);
    // not terminated at once: a worker that runs again would undo its steps
    expect(await call(url, 'tasks/cancel', { taskId })).toMatchObject({ _meta: { 'mcp-temporal-tasks/cancel': { status: 'working' } } });
    expect(await pollTask(url, taskId, undefined, 30_000)).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/cancelled while stuck/) },
    });
  });

  test('synchronously, the same bug is not a hang: after the bounded wait the caller holds a handle that says it is stuck', async () => {
    const { body } = await rpc(url, 'tools/call', { name: 'broken_job', arguments: {} }, { capabilities: {} });
    expect(body.result.isError).toBeFalsy();
    expect(body.result.structuredContent).toMatchObject({
      taskId: expect.stringMatching(/^task_/),
      status: 'working',
      statusMessage: expect.stringMatching(/^stuck: .*reading 'join'/),
    });
    const { taskId } = body.result.structuredContent;
    await temporal.client.workflow.getHandle(taskId).terminate('test over');
  });
});

describe('cancellation is final', () => {
  test('after tasks/cancel the task reads cancelling until the workflow ended cancelled, then cancelled for ever', async () => {
    // wait_and_echo with seconds 0 finishes before the cancel can matter; a 2 s wait is cancelled mid-wait
    const { taskId } = await call(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 2 } });
    await call(url, 'tasks/cancel', { taskId });
    const right = await call(url, 'tasks/get', { taskId });
    expect(right.status === 'cancelled' || right.statusMessage === CANCELLING_MESSAGE).toBe(true);
    expect((await pollTask(url, taskId)).status).toBe('cancelled');
    await temporal.client.workflow
      .getHandle(taskId)
      .result()
      .catch(() => undefined);
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
  });
});

describe('the input round before a task exists', () => {
  const retry = (answer: unknown) =>
    rpc(url, 'tools/call', { name: 'test_tool_with_task', arguments: {}, inputResponses: { user_name: answer } });

  test('an answer that does not fit the requested schema is -32602 with the reason', async () => {
    const first = await call(url, 'tools/call', { name: 'test_tool_with_task', arguments: {} });
    expect(first.resultType).toBe('input_required');
    const { body } = await retry({ action: 'accept', content: { name: 42 } });
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/user_name.*requested schema/);
  });

  test('an answer over the size limit is -32602 naming the limit, not -32603', async () => {
    const { body } = await retry({ action: 'accept', content: { name: 'x'.repeat(1_600_000) } });
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/byte limit/);
  });

  test('a fitting answer creates the task', async () => {
    const { body } = await retry({ action: 'accept', content: { name: 'Ann' } });
    expect(body.result.resultType).toBe('task');
    expect((await pollTask(url, body.result.taskId)).result.content[0].text).toBe('Hello, Ann!');
  });
});

describe('an abandoned synchronous call', () => {
  test('cancels its workflow when the client goes away (retries off: nothing could attach to it)', async () => {
    const { url: noRetries } = await stack.serve({ config: { handleWaitMs: 3000, retryGraceMs: 0 } });
    const aborted = new AbortController();
    const pending = rpc(
      noRetries,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 120, label: 'abandoned' } },
      { capabilities: {}, signal: aborted.signal },
    ).catch(() => undefined);
    const [started] = await waitFor(() =>
      listedIds(temporal.client, `TaskQueue = "${stack.taskQueue}" AND WorkflowType = "slow_compute" AND ExecutionStatus = "Running"`),
    );
    const d = await describeTask(started);
    expect(await d.staticSummary?.()).toMatch(/abandoned/);
    aborted.abort();
    await pending;
    const status = await waitFor(async () => {
      const name = (await describeTask(started)).status.name;
      return name === 'RUNNING' ? undefined : name;
    });
    expect(status).toBe('CANCELLED');
  });
});

describe('only outstanding keys are answers', () => {
  // keys every object inherits: a check with `in` or a plain index takes them for pending questions
  const inherited = ['constructor', 'toString', '__proto__', 'hasOwnProperty'];
  const answers = Object.fromEntries(inherited.map((k) => [k, { action: 'accept', content: { approved: true } }]));

  test('tasks/update keyed constructor, toString, __proto__, hasOwnProperty answers nothing: no signal is recorded, the question stays pending', async () => {
    const { taskId } = await call(url, 'tools/call', { name: 'approve_expense', arguments: { amount: 3, description: 'inherited keys' } });
    await pollTask(url, taskId, (t) => t.status === 'input_required');
    const body = JSON.stringify({ taskId, inputResponses: answers });
    expect(body).toContain('"__proto__"'); // sent as an own key
    expect(await call(url, 'tasks/update', { taskId, inputResponses: answers })).toMatchObject({ resultType: 'complete' });
    const history = await temporal.client.workflow.getHandle(taskId).fetchHistory();
    expect(
      (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === inputResponsesSignal.name),
    ).toEqual([]);
    const task = await call(url, 'tasks/get', { taskId });
    expect(task.status).toBe('input_required');
    expect(Object.keys(task.inputRequests)).toEqual(['approval']);
    await call(url, 'tasks/cancel', { taskId });
  });
});
