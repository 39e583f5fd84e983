/** The 2025-11-25 experimental Tasks revision on the same workflows, with the 1.x SDK's tasks client. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { call } from '../support/mcp';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { CANCELLING_MESSAGE } from '../../src/tasks';

const TOKENS = 'alice:tok-a,bob:tok-b';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

let temporal: TestTemporal;
/** Two replicas against one Temporal, with authentication. */
let url: string;
let url2: string;
/** A replica without authentication: nobody owns anything, so there is no tasks/list. */
let openUrl: string;

const config = { pollIntervalMs: 200 };
const stack = useStack({ config, tokens: TOKENS });
beforeAll(async () => {
  ({ temporal, url } = stack);
  [{ url: url2 }, { url: openUrl }] = await Promise.all([stack.serve({ config, tokens: TOKENS }), stack.serve({ config })]);
});

interface ClientOptions {
  token?: string;
  /** POSTs alternate between these endpoints (default: the first replica only). */
  urls?: string[];
  onElicit?: (request: any) => ElicitResult | Promise<ElicitResult>;
  /** Which replica served each POST, by the JSON-RPC method (or "response" for an answer to the server). */
  posts?: Array<{ url: string; what: string }>;
}

async function legacyClient({ token, urls = [url], onElicit, posts }: ClientOptions = {}): Promise<Client> {
  const client = new Client(
    { name: 'tasks-2025-11-25', version: '1.0.0' },
    { capabilities: onElicit ? { elicitation: { form: {} } } : {} },
  );
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request));
  let next = 0;
  const roundRobin: typeof fetch = (input, init) => {
    if (init?.method !== 'POST') return fetch(input, init);
    const target = urls[next++ % urls.length];
    const body = JSON.parse(String(init.body));
    posts?.push({ url: target, what: body.method ?? 'response' });
    return fetch(target, init);
  };
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(urls[0]), { fetch: roundRobin, requestInit: { headers } }));
  return client;
}

async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task.taskId;
}

/** A raw 2025-11-25 POST (no session: the server is stateless). */
async function post(target: string, message: Record<string, unknown>, token?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return { status: res.status, text: await res.text() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('initialize advertises the 2025 tasks capability (tasks/list only with authentication), not the 2026 extension', async () => {
  const client = await legacyClient({ token: 'tok-a' });
  expect(client.getServerCapabilities()).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
  expect(client.getServerCapabilities()?.extensions).toBeUndefined();
  await client.close();

  const open = await legacyClient({ urls: [openUrl] });
  expect(open.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
  await startTask(open, 'wait_and_echo', { text: 'anyone', seconds: 0 });
  await expect(open.experimental.tasks.listTasks()).rejects.toMatchObject({ code: -32601 });
  await open.close();
});

test('tools/list carries execution.taskSupport; a task call of a forbidden tool is -32601', async () => {
  const client = await legacyClient({ token: 'tok-a' });
  const { tools } = await client.listTools();
  const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
  // required tools read `optional`: a call without `task` gets a task handle (task-handles.test.ts)
  expect(support).toMatchObject({ approve_expense: 'optional', wait_and_echo: 'optional', greet: 'forbidden', task_wait: 'forbidden' });
  expect(tools.every((t) => ['forbidden', 'optional', 'required'].includes(t.execution?.taskSupport as string))).toBe(true);
  await expect(startTask(client, 'greet', { name: 'x' })).rejects.toMatchObject({ code: -32601 });
  expect((await client.callTool({ name: 'greet', arguments: { name: 'Ann' } })).content).toEqual([{ type: 'text', text: 'Hello, Ann!' }]);
  await client.close();
});

test('callToolStream with a task param: taskCreated, status, then the result from tasks/result', async () => {
  const client = await legacyClient({ token: 'tok-a' });
  const seen: string[] = [];
  let result: any;
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'wait_and_echo', arguments: { text: 'from 2025', seconds: 1 } },
    undefined,
    { task: { ttl: 60_000 } },
  )) {
    seen.push(message.type);
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(seen[0]).toBe('taskCreated');
  expect(seen.at(-1)).toBe('result');
  expect(result.content).toEqual([{ type: 'text', text: 'from 2025' }]);
  expect(taskId).toMatch(/^task_/);
  // the same workflow is a 2026 task too
  const task = await call(url, 'tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-a' } });
  expect(task.status).toBe('completed');
  await client.close();
});

test('approve_expense end to end: tools/list picks task mode, the elicitation comes on tasks/result, answered through another replica', async () => {
  const posts: Array<{ url: string; what: string }> = [];
  const asked: any[] = [];
  const client = await legacyClient({
    token: 'tok-a',
    urls: [url, url2],
    posts,
    onElicit: (request) => {
      asked.push(request);
      return { action: 'accept', content: { approved: true, comment: 'fine' } };
    },
  });
  await client.listTools(); // the 1.x SDK learns each tool's taskSupport here
  const seen: string[] = [];
  let result: any;
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream({
    name: 'approve_expense',
    arguments: { amount: 42, description: 'train ticket' },
  })) {
    seen.push(message.type);
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(seen[0]).toBe('taskCreated'); // no explicit task option: chosen from execution.taskSupport
  expect(result.isError).toBe(false);
  expect(result.content[0].text).toBe('Expense of 42 for "train ticket" was approved. Comment: fine');
  expect(result._meta?.[RELATED_TASK]).toEqual({ taskId });
  expect(asked).toHaveLength(1);
  expect(asked[0].params).toMatchObject({ message: expect.stringContaining('42'), _meta: { [RELATED_TASK]: { taskId } } });
  // the stream and the answer went to different replicas
  const stream = posts.findIndex((p) => p.what === 'tasks/result');
  const answer = posts.findIndex((p) => p.what === 'response');
  expect(stream).toBeGreaterThanOrEqual(0);
  expect(answer).toBeGreaterThan(stream);
  expect(posts[answer].url).not.toBe(posts[stream].url);
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
  await client.close();
});

test('the tasks/result stream carries notifications/tasks/status for each change, then the result (no polling)', async () => {
  const client = await legacyClient({ token: 'tok-a' });
  const notified: any[] = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void notified.push(n.params));
  const taskId = await startTask(client, 'provision_environment', { name: 'env-2025', steps: 3, stepMs: 700 });
  const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
  expect(result.content[0]).toEqual({ type: 'text', text: 'Environment env-2025 provisioned in 3 steps.' });
  expect(notified.every((t) => t.taskId === taskId)).toBe(true);
  const working = notified.filter((t) => t.status === 'working').map((t) => t.statusMessage);
  expect(working.length).toBeGreaterThanOrEqual(2);
  expect(working).toEqual([...new Set(working)]); // each change once
  // the workflow's message for the last step, or that step's activity's progress ("...: 40%")
  expect(working.at(-1)).toMatch(/^step 3\/3: provisioning compute for env-2025(: \d+%)?$/);
  expect(notified.at(-1)).toMatchObject({ status: 'completed', ttl: expect.any(Number), pollInterval: 200 });
  await client.close();
});

test('a declined approval: tasks/result returns the isError result, the task is failed on 2025 (completed on 2026)', async () => {
  const client = await legacyClient({ token: 'tok-b', urls: [url2, url], onElicit: () => ({ action: 'decline' }) });
  await client.listTools();
  let result: any;
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream({
    name: 'approve_expense',
    arguments: { amount: 7, description: 'lunch' },
  })) {
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(result.isError).toBe(true);
  expect(result.content[0].text).toContain('declined');
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe('failed');
  expect((await client.experimental.tasks.listTasks()).tasks.find((t) => t.taskId === taskId)?.status ?? 'failed').toBe('failed');
  expect((await call(url, 'tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-b' } })).status).toBe('completed');
  await client.close();
});

test("answers that are not ours or not the caller's are accepted and dropped; a malformed one is refused with its reason (issue 24); the task keeps waiting", async () => {
  const alice = await legacyClient({ token: 'tok-a' });
  const taskId = await startTask(alice, 'approve_expense', { amount: 1, description: 'pen' });
  let task = await alice.experimental.tasks.getTask(taskId);
  for (const deadline = Date.now() + 20_000; task.status !== 'input_required' && Date.now() < deadline;) {
    await sleep(200);
    task = await alice.experimental.tasks.getTask(taskId);
  }
  expect(task.status).toBe('input_required');
  const approve = { action: 'accept', content: { approved: true } };
  for (const [id, token, result] of [
    [`mcp-task-input:${taskId}:approval`, 'tok-b', approve], // bob cannot answer alice's task
    [`mcp-task-input:${taskId}:nope`, 'tok-a', approve], // a key never asked
    ['mcp-task-input:garbage', 'tok-a', approve],
    [17, 'tok-a', approve],
  ] as const) {
    expect(await post(url2, { id, result }, token)).toEqual({ status: 202, text: '' });
  }
  // does not fit the schema: visible, the reason in the answer (the question is asked again on a stream, load-limits.test.ts)
  const misfit = await post(
    url2,
    { id: `mcp-task-input:${taskId}:approval`, result: { action: 'accept', content: { approved: 'yes' } } },
    'tok-a',
  );
  expect(misfit.status).toBe(400);
  expect(JSON.parse(misfit.text)).toMatchObject({
    error: { code: -32602, data: { key: 'approval', reason: expect.stringContaining('approved must be boolean') } },
  });
  expect(await post(url2, { id: `mcp-task-input:${taskId}:approval`, error: { code: -32601, message: 'no' } }, 'tok-a')).toEqual({
    status: 202,
    text: '',
  });
  await sleep(500);
  expect((await alice.experimental.tasks.getTask(taskId)).status).toBe('input_required');
  // the right answer, from the right caller, to either replica, is applied
  expect((await post(url, { id: `mcp-task-input:${taskId}:approval`, result: approve }, 'tok-a')).status).toBe(202);
  const result = await alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  expect((result as any).content[0].text).toContain('was approved');
  await alice.close();
});

test('tasks/cancel answers the cancelled Task; it stays cancelled on both revisions; a terminal task is -32602', async () => {
  const alice = await legacyClient({ token: 'tok-a' });
  const bob = await legacyClient({ token: 'tok-b' });
  const taskId = await startTask(alice, 'provision_environment', { name: 'env', steps: 3, stepMs: 1500 });
  expect(await alice.experimental.tasks.getTask(taskId)).toMatchObject({
    taskId,
    status: 'working',
    ttl: expect.any(Number),
    pollInterval: 200,
  });
  await expect(bob.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
  await expect(bob.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
  await sleep(500);
  expect(await alice.experimental.tasks.cancelTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
  // 2025: cancelled at once and for ever; 2026: cancelling (working) until the workflow has undone its steps, then cancelled
  const seen2026 = new Set<string>();
  for (let i = 0; i < 5; i++) {
    expect((await alice.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    const modern = await call(url2, 'tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-a' } });
    seen2026.add(modern.status === 'working' ? `working: ${modern.statusMessage}` : modern.status);
    await sleep(300);
  }
  expect([...seen2026].every((s) => s === 'cancelled' || s === `working: ${CANCELLING_MESSAGE}`)).toBe(true);
  await temporal.client.workflow
    .getHandle(taskId)
    .result()
    .catch(() => undefined);
  expect((await call(url2, 'tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-a' } })).status).toBe('cancelled');
  expect((await alice.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  await expect(alice.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('already cancelled'),
  });
  const done = await startTask(alice, 'wait_and_echo', { text: 'x', seconds: 0 });
  await alice.experimental.tasks.getTaskResult(done, CallToolResultSchema);
  await expect(alice.experimental.tasks.cancelTask(done)).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('already completed'),
  });
  await expect(alice.experimental.tasks.cancelTask('task_nope')).rejects.toMatchObject({ code: -32602 });
  await alice.close();
  await bob.close();
});

test("a cancel whose undo failed still reads cancelled (this revision's rule); its statusMessage and tasks/result name the step that stayed", async () => {
  const alice = await legacyClient({ token: 'tok-a' });
  const taskId = await startTask(alice, 'saga_job', { steps: 2, stepMs: 0, failUndo: [1], afterMs: 60_000 });
  for (let i = 0; !/all 2 steps done/.test((await alice.experimental.tasks.getTask(taskId)).statusMessage ?? ''); i++) {
    if (i > 100) throw new Error('saga_job never finished its steps');
    await sleep(100);
  }
  expect(await alice.experimental.tasks.cancelTask(taskId)).toMatchObject({ status: 'cancelled' });
  await temporal.client.workflow
    .getHandle(taskId)
    .result()
    .catch(() => undefined);
  expect((await temporal.client.workflow.getHandle(taskId).describe()).status.name).toBe('FAILED');
  expect(await alice.experimental.tasks.getTask(taskId)).toMatchObject({
    status: 'cancelled',
    statusMessage: expect.stringMatching(
      /^cancelled, but 1 step\(s\) could not be undone and may still be in effect: step 1 \(.*the undo of step 1 failed/,
    ),
  });
  await expect(alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toMatchObject({
    code: -32603,
    message: expect.stringMatching(/cancelled, but 1 step\(s\) could not be undone.*step 1/),
    data: { undoFailures: [{ step: 'step 1', reason: expect.stringMatching(/the undo of step 1 failed/) }] },
  });
  // the 2026 revision reads the end as it is: failed, with the undo failure
  expect(await call(url2, 'tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-a' } })).toMatchObject({
    status: 'failed',
    error: { data: { undoFailures: [{ step: 'step 1' }] } },
  });
  await alice.close();
});

test("tasks/list: only the caller's tasks, every one of them; a bad cursor is -32602", async () => {
  const alice = await legacyClient({ token: 'tok-a' });
  const bob = await legacyClient({ token: 'tok-b' });
  const mine = [
    await startTask(alice, 'wait_and_echo', { text: 'a', seconds: 0 }),
    await startTask(alice, 'wait_and_echo', { text: 'b', seconds: 600 }),
  ];
  const listAll = async (client: Client) => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.experimental.tasks.listTasks(cursor);
      ids.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    return ids;
  };
  let listed: string[] = [];
  for (const deadline = Date.now() + 20_000; !mine.every((id) => listed.includes(id)) && Date.now() < deadline;) {
    await sleep(300); // visibility lags
    listed = await listAll(alice);
  }
  expect(listed).toEqual(expect.arrayContaining(mine));
  expect(await listAll(bob)).not.toEqual(expect.arrayContaining([mine[0]]));
  await expect(alice.experimental.tasks.listTasks('not-a-cursor!')).rejects.toMatchObject({ code: -32602 });
  await alice.experimental.tasks.cancelTask(mine[1]);
  await alice.close();
  await bob.close();
});

test('a non-task call of an optional tool answers synchronously; a required tool answers a task handle', async () => {
  const client = await legacyClient({ token: 'tok-a' });
  const result = await client.callTool({ name: 'wait_and_echo', arguments: { text: 'sync 2025', seconds: 0 } });
  expect(result.content).toEqual([{ type: 'text', text: 'sync 2025' }]);
  // without --required-tools-need-tasks (then: -32601, as before handles); details in task-handles.test.ts
  const started = Date.now();
  const handle: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 1, description: 'x' } });
  expect(handle.structuredContent).toMatchObject({ status: 'input_required', tool: 'approve_expense' });
  // this client has no elicitation: it refuses the request sent on the call's stream, and the handle comes at once, not after 20 s
  expect(Date.now() - started).toBeLessThan(10_000);
  await client.callTool({ name: 'task_cancel', arguments: { taskId: handle.structuredContent.taskId } });
  await client.close();
});
