/** Push instead of poll: subscriptions/listen with notifications.taskIds, fed by Temporal's history long-poll. */
import { call, connectClient, rpc, subscribe, type TaskSubscription } from '../support/mcp';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

let url: string;
let authUrl: string;
let limitedUrl: string;
const alice = { authorization: 'Bearer tok-alice-0123456789' };
const bob = { authorization: 'Bearer tok-bob-0123456789' };

// a stuck task's cancel is given 1 s to run its undos (default 60 s) before it is terminated
const stack = useStack({ config: { stuckCancelGraceMs: 1000 } });
beforeAll(async () => {
  url = stack.url;
  const tokens = 'alice:tok-alice-0123456789,bob:tok-bob-0123456789';
  [{ url: authUrl }, { url: limitedUrl }] = await Promise.all([
    stack.serve({ tokens, config: { ownerKey: 'a-test-owner-key-0123456789' } }),
    stack.serve({ tokens, config: { maxSubscribedTasksPerCaller: 2, maxSubscribedTasks: 3 } }),
  ]);
});

const start = async (name: string, args: Record<string, unknown>, at = url, headers?: Record<string, string>) =>
  (await call(at, 'tools/call', { name, arguments: args }, { headers })).taskId as string;

const unknownTaskId = 'task_' + 'A'.repeat(32);

/** Notifications until the stream ends, checked to be notifications/tasks for `taskId`, plus the final message. */
async function taskNotifications(sub: TaskSubscription, taskId: string) {
  const messages = await sub.rest(60_000);
  const end = messages.pop();
  expect(messages.every((m) => m.method === 'notifications/tasks' && m.params.taskId === taskId)).toBe(true);
  return { tasks: messages.map((m) => m.params), end };
}

describe('a subscribed task tells its changes, in order, without tasks/get', () => {
  test('approve_expense: input_required with its request, then after the answer the terminal state, then the stream ends', async () => {
    const taskId = await start('approve_expense', { amount: 12, description: 'taxi' });
    const sub = await subscribe(url, [taskId]);
    expect(sub.status).toBe(200);
    const ack = await sub.next();
    expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [taskId] } } });
    const subscriptionId = ack.params._meta['io.modelcontextprotocol/subscriptionId'];
    expect(subscriptionId).toEqual(expect.stringMatching(/^listen-/));
    // the current state comes first; it is input_required once the workflow has run
    let task = (await sub.next()).params;
    while (task.status !== 'input_required') task = (await sub.next()).params;
    expect(task).toMatchObject({
      taskId,
      status: 'input_required',
      statusMessage: 'waiting for approval',
      pollIntervalMs: expect.any(Number),
    });
    expect(task.inputRequests.approval).toMatchObject({ method: 'elicitation/create' });
    await call(url, 'tasks/update', { taskId, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
    const { tasks, end } = await taskNotifications(sub, taskId);
    expect(tasks.at(-1)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Expense of 12 for "taxi" was approved.' }] },
    });
    expect(tasks.slice(0, -1).every((t) => t.status === 'working')).toBe(true); // the answer applied, nothing else
    expect(end).toEqual({
      jsonrpc: '2.0',
      id: subscriptionId,
      result: { resultType: 'complete', _meta: expect.objectContaining({ 'io.modelcontextprotocol/subscriptionId': subscriptionId }) },
    });
  });

  test('a task stuck in a workflow-task failure loop is told as stuck, with the failure; a cancel then ends it failed once it still fails past the grace', async () => {
    const taskId = await start('broken_job', {});
    const sub = await subscribe(url, [taskId]);
    await sub.next(); // the ack
    let task = (await sub.next()).params;
    while (!/^stuck: /.test(task.statusMessage ?? '')) task = (await sub.next()).params;
    expect(task).toMatchObject({ taskId, status: 'working', statusMessage: expect.stringMatching(/last failure: .*reading 'join'/) });
    await call(url, 'tasks/cancel', { taskId });
    const { tasks } = await taskNotifications(sub, taskId);
    expect(tasks.at(-1)).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/cancelled while stuck/) } });
  });

  test("provision_environment: each step's statusMessage in order (its activity's progress between), then completed", async () => {
    const taskId = await start('provision_environment', { name: 'env-sub', steps: 3, stepMs: 700 });
    const sub = await subscribe(url, [taskId]);
    await sub.next(); // ack
    const { tasks } = await taskNotifications(sub, taskId);
    const messages = tasks.filter((t) => t.status === 'working' && t.statusMessage).map((t) => t.statusMessage);
    expect(messages).toEqual([...new Set(messages)]); // each change once
    // the workflow's message for a step, or its activity's progress: "step 2/3: provisioning database for env-sub: 40%"
    const steps = [...new Set(messages.map((m) => m.replace(/: \d+%$/, '')))];
    expect(steps).toEqual(
      [
        'step 1/3: provisioning network for env-sub',
        'step 2/3: provisioning database for env-sub',
        'step 3/3: provisioning compute for env-sub',
      ].slice(3 - steps.length),
    );
    expect(steps.length).toBeGreaterThanOrEqual(2); // the first may have been set before the subscription
    expect(tasks.at(-1).status).toBe('completed');
    // what the last notification says is exactly what tasks/get answers
    const { resultType, ...got } = await call(url, 'tasks/get', { taskId });
    expect(resultType).toBe('complete');
    expect(tasks.at(-1)).toEqual({ ...got, _meta: expect.any(Object) });
  });

  test('a cancelled task notifies cancelled and leaves the subscription', async () => {
    const taskId = await start('wait_and_echo', { text: 'x', seconds: 600 });
    const sub = await subscribe(url, [taskId]);
    await sub.next();
    await sub.next(); // its current state
    await call(url, 'tasks/cancel', { taskId });
    const { tasks, end } = await taskNotifications(sub, taskId);
    expect(tasks.at(-1).status).toBe('cancelled');
    expect(end.result.resultType).toBe('complete');
  });

  test('a task that already ended: acknowledged, its terminal state, and the stream ends', async () => {
    const taskId = await start('wait_and_echo', { text: 'done', seconds: 0 });
    await waitFor(async () => ((await call(url, 'tasks/get', { taskId })).status === 'completed' ? true : undefined));
    const sub = await subscribe(url, [taskId, taskId]); // a taskId twice counts once
    const messages = await sub.rest();
    expect(messages.map((m) => m.method ?? 'end')).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tasks', 'end']);
    expect(messages[0].params.notifications.taskIds).toEqual([taskId]);
    expect(messages[1].params.status).toBe('completed');
  });

  test('a task deleted in Temporal while subscribed leaves the subscription; the stream ends', async () => {
    const taskId = await start('wait_and_echo', { text: 'gone', seconds: 600 });
    // its first status message written: a later change would be one more (legitimate) working notification
    await waitFor(async () => (/waiting 600 s/.test((await call(url, 'tasks/get', { taskId })).statusMessage ?? '') ? true : undefined));
    const sub = await subscribe(url, [taskId]);
    await sub.next();
    await sub.next();
    await stack.temporal.client.workflowService.deleteWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: taskId },
    });
    const messages = await sub.rest(30_000);
    expect(messages.at(-1).result.resultType).toBe('complete');
    expect(messages.slice(0, -1).every((m) => m.params.status !== 'working')).toBe(true); // at most its end (terminated), never more
  });

  test('100 subscribed tasks ending at once all notify their terminal state', async () => {
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => start('wait_and_echo', { text: `n${i}`, seconds: 4 })));
    const [first, second] = [await subscribe(url, ids.slice(0, 50)), await subscribe(url, ids.slice(50))];
    const all = [...(await first.rest(90_000)), ...(await second.rest(90_000))];
    const terminal = all.filter((m) => m.method === 'notifications/tasks' && m.params.status === 'completed');
    expect(new Set(terminal.map((m) => m.params.taskId))).toEqual(new Set(ids));
    expect(terminal).toHaveLength(100); // each once
    expect(all.filter((m) => m.result?.resultType === 'complete')).toHaveLength(2); // both streams ended
  }, 120_000);

  test('the MCP SDK v2 client: listen() opens it and the notifications reach its handlers', async () => {
    const taskId = await start('wait_and_echo', { text: 'sdk', seconds: 1 });
    const client = await connectClient(url, '2026-07-28', { extensions: { 'io.modelcontextprotocol/tasks': {} } });
    const seen: any[] = [];
    client.fallbackNotificationHandler = async (n) => void seen.push(n);
    const subscription = await client.listen({ taskIds: [taskId] } as never, { timeout: 10_000 });
    expect(await Promise.race([subscription.closed, new Promise((r) => setTimeout(() => r('timeout'), 20_000))])).toBe('graceful');
    expect(seen.map((n) => n.method)).toContain('notifications/tasks');
    expect(seen.at(-1).params).toMatchObject({ taskId, status: 'completed' });
    await client.close();
  });
});

describe("only the caller's own tasks, with a clear error otherwise", () => {
  test("another caller's task is left out of the ack exactly like an unknown one", async () => {
    const mine = await start('wait_and_echo', { text: 'a', seconds: 30 }, authUrl, alice);
    const bobs = await subscribe(authUrl, [mine, unknownTaskId], { headers: bob });
    const unknownOnly = await subscribe(authUrl, [unknownTaskId], { headers: bob });
    const [a, b] = [await bobs.rest(), await unknownOnly.rest()];
    const strip = (ms: any[]) =>
      ms.map((m) => ({
        ...m,
        id: undefined,
        params: m.params && { ...m.params, _meta: undefined },
        result: m.result && { resultType: m.result.resultType },
      }));
    expect(strip(a)).toEqual(strip(b));
    expect(a[0].params.notifications.taskIds).toEqual([]);
    // alice gets hers
    const hers = await subscribe(authUrl, [mine, unknownTaskId], { headers: alice });
    expect((await hers.next()).params.notifications.taskIds).toEqual([mine]);
    expect((await hers.next()).params).toMatchObject({ taskId: mine, status: 'working' });
    hers.close();
    await call(authUrl, 'tasks/cancel', { taskId: mine }, { headers: alice });
  });

  test('without the Tasks extension declared: -32021 (HTTP 400)', async () => {
    const sub = await subscribe(url, [unknownTaskId], { capabilities: {} });
    expect(sub.status).toBe(400);
    expect(sub.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });

  test('taskIds that are not a list of strings: -32602', async () => {
    const sub = await subscribe(url, 'task_x');
    expect(sub.error).toMatchObject({ code: -32602, message: expect.stringContaining('taskIds') });
  });

  test("a listen request without taskIds is still the SDK's (its own change filters)", async () => {
    const sub = await subscribe(url, undefined, { notifications: { toolsListChanged: true } });
    const ack = await sub.next();
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params.notifications.taskIds).toBeUndefined();
    sub.close();
  });

  test('limits per caller and per server, and a vanished client gives its places back', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, () => start('wait_and_echo', { text: 'l', seconds: 600 }, limitedUrl, alice)));
    const bobs = await Promise.all(Array.from({ length: 2 }, () => start('wait_and_echo', { text: 'l', seconds: 600 }, limitedUrl, bob)));
    const tooMany = await subscribe(limitedUrl, ids.slice(0, 3), { headers: alice });
    expect(tooMany.error).toMatchObject({
      code: -32603,
      message: 'Watch limit reached: at most 2 watched tasks (subscriptions, tasks/result streams, held calls) per caller at once',
      data: { scope: 'caller', limit: 2 },
    });
    const held = await subscribe(limitedUrl, ids.slice(0, 2), { headers: alice });
    await held.next();
    expect((await subscribe(limitedUrl, ids.slice(2, 3), { headers: alice })).error?.data).toEqual({ scope: 'caller', limit: 2 });
    // bob is within his own limit, but the replica holds 2 of 3
    expect((await subscribe(limitedUrl, bobs, { headers: bob })).error).toMatchObject({
      code: -32603,
      data: { scope: 'server', limit: 3 },
    });
    held.close(); // the client goes away mid-stream
    const again = await waitFor(async () => {
      const sub = await subscribe(limitedUrl, ids.slice(2, 4), { headers: alice });
      return sub.error ? undefined : sub;
    }, 5_000);
    expect((await again.next()).params.notifications.taskIds).toEqual(ids.slice(2, 4));
    again.close();
    await Promise.all([
      ...ids.map((taskId) => call(limitedUrl, 'tasks/cancel', { taskId }, { headers: alice })),
      ...bobs.map((taskId) => call(limitedUrl, 'tasks/cancel', { taskId }, { headers: bob })),
    ]);
  });

  test('a client that leaves while its tasks are still being read holds no place afterwards', async () => {
    const ids = await Promise.all(
      Array.from({ length: 2 }, () => start('wait_and_echo', { text: 'early', seconds: 600 }, limitedUrl, alice)),
    );
    for (const ms of [0, 5, 20]) {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), ms);
      await subscribe(limitedUrl, ids, { headers: alice, signal: abort.signal }).catch(() => undefined);
    }
    const sub = await waitFor(async () => {
      const attempt = await subscribe(limitedUrl, ids, { headers: alice });
      return attempt.error ? undefined : attempt;
    }, 5_000);
    expect((await sub.next()).params.notifications.taskIds).toEqual(ids);
    sub.close();
    await Promise.all(ids.map((taskId) => call(limitedUrl, 'tasks/cancel', { taskId }, { headers: alice })));
  });

  test('a mismatched Mcp-Method header is refused like any request (400 / -32020)', async () => {
    const sub = await subscribe(url, [unknownTaskId], { headers: { 'mcp-method': 'tools/list' } });
    expect([sub.status, sub.error?.code]).toEqual([400, -32020]);
  });
});

test('a serve replica stopped with SIGTERM ends its subscriptions gracefully (the client knows to listen elsewhere)', async () => {
  // the signal to a process is the point: a `serve` process on this file's Temporal and queue
  const { proc, url: doomed } = await stack.serveProcess();
  const taskId = await start('wait_and_echo', { text: 'x', seconds: 600 });
  const sub = await subscribe(doomed, [taskId]);
  await sub.next();
  await sub.next();
  proc.child.kill('SIGTERM');
  const messages = await sub.rest(15_000);
  expect(messages.at(-1)).toMatchObject({ result: { resultType: 'complete' } });
  await call(url, 'tasks/cancel', { taskId });
});

test('tasks/get still answers while subscribed (both views agree)', async () => {
  const taskId = await start('wait_and_echo', { text: 'both', seconds: 600 });
  const sub = await subscribe(url, [taskId]);
  await sub.next();
  const pushed = (await sub.next()).params;
  const polled = await rpc(url, 'tasks/get', { taskId });
  expect(polled.body.result.status).toBe(pushed.status);
  sub.close();
  await call(url, 'tasks/cancel', { taskId });
});
