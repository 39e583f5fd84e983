/** The 2025-11-25 experimental Tasks generation on the same workflows, with the 1.x SDK's tasks client. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, startServe, startWorker } from './support/mcp';
import { stopAllAfter } from './support/processes';
import { startTestTemporal, TestTemporal } from './support/temporal';

let temporal: TestTemporal;
let url: string;

beforeAll(async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  ({ url } = await startServe(temporal.address, ['--poll-interval-ms', '200'], { MCP_AUTH_TOKENS: 'alice:tok-a,bob:tok-b' }));
});

stopAllAfter(() => temporal);

async function legacyClient(token: string): Promise<Client> {
  const client = new Client({ name: 'legacy-tasks', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

test('initialize advertises the 2025 tasks capability, not the 2026 extension', async () => {
  const client = await legacyClient('tok-a');
  expect(client.getServerCapabilities()).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
  expect(client.getServerCapabilities()?.extensions).toBeUndefined();
  await client.close();
});

test('callToolStream with a task param: taskCreated, status, then the result from tasks/result', async () => {
  const client = await legacyClient('tok-a');
  const seen: string[] = [];
  let result: any;
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream({ name: 'wait_and_echo', arguments: { text: 'from 2025', seconds: 1 } }, undefined, { task: { ttl: 60_000 } })) {
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

test('getTask, cancelTask and listTasks (limited to the caller)', async () => {
  const alice = await legacyClient('tok-a');
  const bob = await legacyClient('tok-b');
  const created = await alice.request({ method: 'tools/call', params: { name: 'wait_and_echo', arguments: { text: 'x', seconds: 600 }, task: { ttl: 60_000 } } }, (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema);
  const { taskId } = created.task;
  expect(await alice.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working', ttl: expect.any(Number), pollInterval: 200 });
  await expect(bob.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
  const deadline = Date.now() + 20_000;
  let listed: string[] = [];
  while (!listed.includes(taskId) && Date.now() < deadline) {
    listed = (await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
    if (!listed.includes(taskId)) await new Promise((r) => setTimeout(r, 500)); // visibility lags
  }
  expect(listed).toContain(taskId);
  expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(taskId);
  const cancelled = await alice.experimental.tasks.cancelTask(taskId);
  expect(cancelled.taskId).toBe(taskId);
  let status = cancelled.status;
  while (status !== 'cancelled' && Date.now() < deadline + 20_000) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await alice.experimental.tasks.getTask(taskId)).status;
  }
  expect(status).toBe('cancelled');
  await alice.close();
  await bob.close();
});

test('a non-task call of an optional tool answers synchronously; a required tool needs the task param', async () => {
  const client = await legacyClient('tok-a');
  const result = await client.callTool({ name: 'wait_and_echo', arguments: { text: 'sync 2025', seconds: 0 } });
  expect(result.content).toEqual([{ type: 'text', text: 'sync 2025' }]);
  await expect(client.callTool({ name: 'approve_expense', arguments: { amount: 1, description: 'x' } })).rejects.toMatchObject({ code: -32601 });
  await client.close();
});
