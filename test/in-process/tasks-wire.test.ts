/** The exact 2026-07-28 Tasks wire, by raw HTTP, checked with ext-tasks' own schemas. */
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRequest, call, DECLARING, pollTask, rpc } from '../support/mcp';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { CANCELLING_MESSAGE } from '../../src/tasks';
import { CANCEL_OUTCOME_META_KEY } from '../../src/mcp/rev2026-07-28/tasks-methods';

let temporal: TestTemporal;
let url: string;
const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));

// requiredToolsNeedTasks: this file checks the -32021 answer (task handles: task-handles.test.ts)
const stack = useStack({ workerEnv: { MCP_TASKS_LEDGER_DIR: ledger }, config: { pollIntervalMs: 250, requiredToolsNeedTasks: true } });
beforeAll(() => {
  ({ temporal, url } = stack);
});
const serveWith = async (config: Parameters<typeof stack.serve>[0] = {}) => (await stack.serve(config)).url;

const NON_DECLARING = {};
const UNKNOWN_ID = 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

async function createTask(name: string, args: Record<string, unknown>) {
  const created = await call(url, 'tools/call', { name, arguments: args });
  return CreateTaskResultV2Schema.parse(created);
}

/** An empty ack: resultType complete and nothing else but the SDK's serverInfo _meta. */
function expectEmptyAck(ack: any) {
  const { _meta, ...rest } = ack;
  expect(rest).toEqual({ resultType: 'complete' });
}

const get = async (taskId: string) => GetTaskResultV2Schema.parse(await call(url, 'tasks/get', { taskId })) as any;

describe('tools/call', () => {
  test('a declaring request gets a flat CreateTaskResult, and tasks/get resolves at once', async () => {
    const created = await createTask('wait_and_echo', { text: 'hi', seconds: 1 });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 86_400_000, pollIntervalMs: 250 });
    expect(created.taskId).toMatch(/^task_[A-Za-z0-9_-]{32}$/);
    expect(created).not.toHaveProperty('task');
    const first = await get(created.taskId);
    expect(first).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working', createdAt: created.createdAt });
    const done = await pollTask(url, created.taskId);
    expect(GetTaskResultV2Schema.parse(done)).toMatchObject({
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }], isError: false },
    });
    const description = await temporal.client.workflow.getHandle(created.taskId).describe();
    expect(description.type).toBe('waitAndEcho');
    expect(description.searchAttributes.McpTool).toEqual(['wait_and_echo']);
  });

  test('a non-declaring request for an optional tool runs synchronously; the 2025-11-25 params.task is ignored', async () => {
    const { body } = await rpc(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'sync', seconds: 0 }, task: { ttl: 60000 } },
      { capabilities: NON_DECLARING },
    );
    expect(body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'sync' }] });
    expect(body.result).not.toHaveProperty('taskId');
  });

  test('a required tool without the declaration gets -32021 with data.requiredCapabilities, HTTP 400', async () => {
    const { status, body } = await rpc(
      url,
      'tools/call',
      { name: 'approve_expense', arguments: { amount: 5, description: 'x' } },
      { capabilities: NON_DECLARING },
    );
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });

  test('a never-mode tool answers synchronously even to a declaring client', async () => {
    const result = await call(url, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  test('a protocol-level failure in a sync call is a JSON-RPC error', async () => {
    // protocol_error_job is task-required; call it as a task and read the failure instead
    const created = await createTask('protocol_error_job', {});
    const failed = await pollTask(url, created.taskId);
    expect(GetTaskResultV2Schema.parse(failed)).toMatchObject({
      status: 'failed',
      statusMessage: 'The job hit a protocol-level failure',
      error: { code: -32603, message: 'The job hit a protocol-level failure' },
    });
    expect(failed).not.toHaveProperty('result');
  });

  test('a business failure is completed with isError:true', async () => {
    const created = await createTask('failing_job', {});
    const done = await pollTask(url, created.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { isError: true, resultType: 'complete' } });
  });
});

describe('tasks/get', () => {
  test.each([
    ['unknown', UNKNOWN_ID],
    ['malformed', 'not-a-task-id'],
    ['too long', `task_${'A'.repeat(5000)}`],
    ['not a string', 42],
  ])('an %s taskId answers -32602', async (_label, taskId) => {
    const { body } = await rpc(url, 'tasks/get', { taskId }, { headers: { 'mcp-name': String(taskId) } });
    expect(body.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  });

  test.each(['tasks/get', 'tasks/update', 'tasks/cancel'])(
    '%s from a non-declaring request answers -32021 before any lookup',
    async (method) => {
      const { body } = await rpc(url, method, { taskId: 'gate-test', inputResponses: {} }, { capabilities: NON_DECLARING });
      expect(body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
    },
  );

  test('a terminated workflow reads as failed with an internal error', async () => {
    const created = await createTask('wait_and_echo', { text: 'x', seconds: 600 });
    await temporal.client.workflow.getHandle(created.taskId).terminate('operator stopped it');
    const task = await get(created.taskId);
    expect(task).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The task was terminated in Temporal: operator stopped it' },
    });
  });

  test('statusMessage tracks the workflow: provision_environment reports its steps', async () => {
    const created = await createTask('provision_environment', { name: 'staging', steps: 2, stepMs: 800 });
    const working = await pollTask(url, created.taskId, (t) => /^step \d\/2/.test(t.statusMessage ?? ''));
    expect(working.status).toBe('working');
    const done = await pollTask(url, created.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Environment staging provisioned in 2 steps.' }] } });
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThan(Date.parse(done.createdAt));
  });
});

describe('input during a task', () => {
  test('approve_expense asks by elicitation; unknown keys are ignored; the answer completes it', async () => {
    const { taskId } = await createTask('approve_expense', { amount: 99.5, description: 'books' });
    const waiting = await pollTask(url, taskId, (t) => t.status === 'input_required');
    expect(waiting.inputRequests).toEqual({
      approval: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Approve the expense of 99.5 for "books"?',
          requestedSchema: expect.objectContaining({ required: ['approved'] }),
        },
      },
    });
    const ack = await call(url, 'tasks/update', { taskId, inputResponses: { 'not-asked': { action: 'accept', content: {} } } });
    expectEmptyAck(UpdateTaskResultV2Schema.parse(ack));
    expect((await get(taskId)).status).toBe('input_required');
    for (const wrong of [
      { action: 'accept', content: { approved: 'yes' } },
      { action: 'accept', content: {} },
      { action: 'maybe' },
      'approved',
    ]) {
      const { body } = await rpc(url, 'tasks/update', { taskId, inputResponses: { approval: wrong } });
      expect(body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^inputResponses\.approval: /) });
    }
    expect((await get(taskId)).inputRequests).toHaveProperty('approval');
    await call(url, 'tasks/update', { taskId, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
    const next = await get(taskId);
    expect(next.inputRequests?.approval).toBeUndefined();
    const done = await pollTask(url, taskId);
    expect(done.result.content[0].text).toBe('Expense of 99.5 for "books" was approved.');
  });

  test('partial answers keep the task input_required and answered keys vanish at once', async () => {
    const { taskId } = await createTask('multi_input', {});
    const waiting = await pollTask(url, taskId, (t) => Object.keys(t.inputRequests ?? {}).length === 2);
    expect(Object.keys(waiting.inputRequests)).toEqual(['first', 'second']);
    await call(url, 'tasks/update', { taskId, inputResponses: { first: { action: 'accept', content: { name: 'a' } } } });
    const partial = await get(taskId);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual(['second']);
    await call(url, 'tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { name: 'b' } } } });
    expect((await pollTask(url, taskId)).result.content[0].text).toBe('Received 2 inputs');
  });

  test('tasks/update for an unknown task answers -32602; for a finished one it is acked', async () => {
    const { body } = await rpc(url, 'tasks/update', { taskId: UNKNOWN_ID, inputResponses: {} });
    expect(body.error.code).toBe(-32602);
    const { taskId } = await createTask('wait_and_echo', { text: 'x', seconds: 0 });
    await pollTask(url, taskId);
    expectEmptyAck(await call(url, 'tasks/update', { taskId, inputResponses: { any: { action: 'cancel' } } }));
  });
});

describe('tasks/cancel', () => {
  test('cancelling wait_and_echo mid-wait ends it cancelled; cancelling again is an empty ack', async () => {
    const { taskId } = await createTask('wait_and_echo', { text: 'x', seconds: 600 });
    const ack = await call(url, 'tasks/cancel', { taskId });
    // the ack (an open object) says what the cancel did
    expect(CancelTaskResultV2Schema.parse(ack)).toMatchObject({
      resultType: 'complete',
      _meta: { [CANCEL_OUTCOME_META_KEY]: { status: 'working', statusMessage: CANCELLING_MESSAGE } },
    });
    expect(ack.status).toBeUndefined(); // an empty ack otherwise
    const cancelled = await pollTask(url, taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(await call(url, 'tasks/cancel', { taskId })).toMatchObject({
      resultType: 'complete',
      _meta: { [CANCEL_OUTCOME_META_KEY]: { status: 'cancelled' } },
    });
    expect((await get(taskId)).status).toBe('cancelled');
  });

  test('a cancel that comes after the task completed: the task reads completed and the ack says nothing was cancelled', async () => {
    const { taskId } = await createTask('wait_and_echo', { text: 'done first', seconds: 0 });
    expect((await pollTask(url, taskId)).status).toBe('completed');
    expect(await call(url, 'tasks/cancel', { taskId })).toMatchObject({
      resultType: 'complete',
      _meta: { [CANCEL_OUTCOME_META_KEY]: { status: 'completed', statusMessage: 'The task had already completed: nothing was cancelled' } },
    });
    expect(await get(taskId)).toMatchObject({ status: 'completed', result: { content: [{ text: 'done first' }] } });
  });

  test('cancelling provision_environment undoes the steps already done', async () => {
    const { taskId } = await createTask('provision_environment', { name: 'doomed', steps: 5, stepMs: 700 });
    await pollTask(url, taskId, (t) => /^step 3\/5/.test(t.statusMessage ?? ''));
    await call(url, 'tasks/cancel', { taskId });
    expect((await pollTask(url, taskId)).status).toBe('cancelled'); // once the workflow has undone the steps
    await temporal.client.workflow
      .getHandle(taskId)
      .result()
      .catch(() => undefined);
    const files = fs.readdirSync(ledger).filter((f) => f.includes(taskId));
    const provisioned = files.filter((f) => f.startsWith('provision-')).sort();
    const undone = files.filter((f) => f.startsWith('deprovision-')).sort();
    expect(provisioned.length).toBeGreaterThanOrEqual(2);
    expect(undone.map((f) => f.replace('deprovision-', ''))).toEqual(provisioned.map((f) => f.replace('provision-', '')));
  });

  test('cancel of an unknown task answers -32602', async () => {
    const { body } = await rpc(url, 'tasks/cancel', { taskId: UNKNOWN_ID });
    expect(body.error.code).toBe(-32602);
  });
});

describe('routing headers', () => {
  test('by default a tasks/get or tools/call without Mcp-Name / Mcp-Method is served, the values taken from the body', async () => {
    const { taskId } = await createTask('slow_compute', { seconds: 0.2, label: 'no-headers' });
    const got = await rpc(url, 'tasks/get', { taskId }, { headers: { 'mcp-name': undefined } });
    expect(got.status).toBe(200);
    expect(GetTaskResultV2Schema.parse(got.body.result).taskId).toBe(taskId);
    const neither = await rpc(url, 'tasks/get', { taskId: UNKNOWN_ID }, { headers: { 'mcp-name': undefined, 'mcp-method': undefined } });
    expect(neither.body.error.code).toBe(-32602);
    const greet = await rpc(
      url,
      'tools/call',
      { name: 'greet', arguments: { name: 'x' } },
      { headers: { 'mcp-name': undefined, 'mcp-method': undefined } },
    );
    expect(greet.body.result.content[0].text).toBe('Hello, x!');
  });

  test('a mismatched Mcp-Name or Mcp-Method is HTTP 400 / -32020, also by default', async () => {
    const a = await rpc(url, 'tasks/get', { taskId: UNKNOWN_ID }, { headers: { 'mcp-name': 'task_other' } });
    const b = await rpc(url, 'tools/call', { name: 'greet', arguments: { name: 'x' } }, { headers: { 'mcp-method': 'tasks/get' } });
    const c = await rpc(url, 'tasks/get', { taskId: UNKNOWN_ID }, { headers: { 'mcp-name': 'task_other', 'mcp-method': undefined } });
    expect([a.status, a.body.error.code, b.status, b.body.error.code, c.status, c.body.error.code]).toEqual([
      400, -32020, 400, -32020, 400, -32020,
    ]);
  });

  test('a body that is not JSON, or none, is HTTP 400 / -32700 with or without routing headers', async () => {
    const { headers } = buildRequest('tasks/get', { taskId: UNKNOWN_ID });
    const answers = [];
    for (const body of ['{"jsonrpc": "2.0", "method": "tasks/get"', 'not json', '']) {
      for (const routing of [true, false]) {
        const sent = routing ? headers : Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('mcp-')));
        const res = await fetch(url, { method: 'POST', headers: sent, body });
        answers.push([res.status, ((await res.json()) as { error: { code: number } }).error.code]);
      }
    }
    expect(answers).toEqual(Array(6).fill([400, -32700]));
  });

  test('--strict-headers (or MCP_STRICT_HEADERS=true) refuses a missing Mcp-Name / Mcp-Method with HTTP 400 / -32020', async () => {
    // the flag and the variable are the point: these two are `serve` processes (dist/), on this file's queue
    const { url: strict } = await stack.serveProcess(['--strict-headers']);
    const { url: strictEnv } = await stack.serveProcess([], { MCP_STRICT_HEADERS: 'true' });
    for (const u of [strict, strictEnv]) {
      const noName = await rpc(u, 'tasks/get', { taskId: UNKNOWN_ID }, { headers: { 'mcp-name': undefined } });
      const noMethod = await rpc(u, 'tools/list', {}, { headers: { 'mcp-method': undefined } });
      const bad = await rpc(u, 'tasks/get', { taskId: UNKNOWN_ID }, { headers: { 'mcp-name': 'task_other' } });
      expect([noName.status, noName.body.error.code, noMethod.status, noMethod.body.error.code, bad.status, bad.body.error.code]).toEqual([
        400, -32020, 400, -32020, 400, -32020,
      ]);
    }
  });
});

describe('ttl', () => {
  test('ttlMs never promises more than the namespace retention keeps', async () => {
    const ns = await temporal.client.workflowService.describeNamespace({ namespace: 'default' });
    const retentionMs = Number(ns.config!.workflowExecutionRetentionTtl!.seconds) * 1000;
    const longTtl = await serveWith({ config: { ttlMs: retentionMs * 10 } });
    const created = CreateTaskResultV2Schema.parse(
      await call(longTtl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } }),
    );
    expect(created.ttlMs).toBe(retentionMs);
  });

  test('a finished task stays readable for its ttlMs, then answers -32602', async () => {
    const shortTtl = await serveWith({ config: { ttlMs: 3000 } });
    const created = CreateTaskResultV2Schema.parse(
      await call(shortTtl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } }),
    );
    expect(created.ttlMs).toBe(3000);
    const done = await pollTask(shortTtl, created.taskId);
    await new Promise((r) => setTimeout(r, Date.parse(done.lastUpdatedAt) + 3100 - Date.now()));
    const { body } = await rpc(shortTtl, 'tasks/get', { taskId: created.taskId });
    expect(body.error.code).toBe(-32602);
  });

  test('a task that runs longer than its ttlMs keeps its result for ttlMs after it finished (ttlMs raised to say so)', async () => {
    const shortTtl = await serveWith({ config: { ttlMs: 2000 } });
    const created = CreateTaskResultV2Schema.parse(
      await call(shortTtl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'late', seconds: 3 } }),
    );
    expect(created.ttlMs).toBe(2000);
    const done = await pollTask(shortTtl, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'late' }]);
    const finishedAfter = Date.parse(done.lastUpdatedAt) - Date.parse(created.createdAt);
    expect(finishedAfter).toBeGreaterThanOrEqual(3000);
    expect(done.ttlMs).toBe(finishedAfter + 2000);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await call(shortTtl, 'tasks/get', { taskId: created.taskId })).status).toBe('completed'); // past createdAt + 2000, within the raised ttl
  });
});

test('server/discover advertises the extension (and no 2025 tasks capability)', async () => {
  const result = await call(url, 'server/discover', {}, { capabilities: DECLARING });
  expect(result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
  expect(result.capabilities).not.toHaveProperty('tasks');
});
