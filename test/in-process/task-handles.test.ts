/**
 * Clients that do not speak Tasks (the v2 SDK's plain Client on 2026-07-28, the 1.x SDK's
 * plain callTool on 2025-11-25) against a real Temporal: task handles and the task_* tools.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, inRealmFetch, PROTOCOL, rpc } from '../support/mcp';
import { useStack } from '../support/stack';
import { inputResponsesSignal } from '../../src/contract';
import { waitFor } from '../support/wait';

const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));
const BOUND = { handleWaitMs: 2000 };
const TOKENS = 'alice:tok-a,bob:tok-b';
const APPROVE = 'Asks a human to approve an expense (one form elicitation) and reports the decision.';

let url: string;
/** With authentication: owners, and task_list. */
let authUrl: string;
/** --no-task-handles: as before task handles. */
let offUrl: string;

const stack = useStack({ config: BOUND, workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });
beforeAll(async () => {
  url = stack.url;
  [{ url: authUrl }, { url: offUrl }] = await Promise.all([
    stack.serve({ config: BOUND, tokens: TOKENS }),
    stack.serve({ config: { taskHandles: false } }),
  ]);
});

type Elicit = (request: any) => any;

async function v2Client(opts: { onElicit?: Elicit; token?: string; target?: string } = {}): Promise<V2Client> {
  const client = new V2Client(
    { name: 'plain-v2', version: '1.0.0' },
    { capabilities: opts.onElicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  if (opts.onElicit) client.setRequestHandler('elicitation/create', async (request: any) => opts.onElicit!(request));
  const requestInit = opts.token ? { headers: { authorization: `Bearer ${opts.token}` } } : undefined;
  await client.connect(new V2Transport(new URL(opts.target ?? url), { requestInit, fetch: inRealmFetch }));
  return client;
}

async function v1Client(opts: { onElicit?: Elicit } = {}): Promise<V1Client> {
  const client = new V1Client({ name: 'plain-v1', version: '1.0.0' }, { capabilities: opts.onElicit ? { elicitation: { form: {} } } : {} });
  if (opts.onElicit) client.setRequestHandler(ElicitRequestSchema, async (request) => opts.onElicit!(request));
  await client.connect(new V1Transport(new URL(url)));
  return client;
}

const running = (result: any) => ['working', 'input_required'].includes(result.structuredContent?.status);
type AnyClient = { callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<any> };
const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

/** Calls task_wait until the task has ended; the last answer. */
async function waitToEnd(client: AnyClient, taskId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result: any = await client.callTool({ name: 'task_wait', arguments: { taskId } });
    if (result.structuredContent?.taskId !== taskId || !['working', 'input_required'].includes(result.structuredContent?.status))
      return result;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${result.structuredContent.status}`);
  }
}

function ledgerFiles(taskId: string): string[] {
  return fs
    .readdirSync(ledger)
    .filter((f) => f.includes(taskId))
    .sort();
}

const clients = {
  'v2 plain Client (2026-07-28)': v2Client,
  '1.x SDK callTool (2025-11-25)': v1Client,
};

describe.each(Object.entries(clients))('%s', (_name, connect) => {
  test('tools/list: the task tools, and task tools that say how to follow a handle', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t: any) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['task_wait', 'task_respond', 'task_cancel']));
    expect(byName.task_list).toBeUndefined(); // no authentication: nobody owns a task
    expect(byName.approve_expense.description).toContain('task_wait');
    expect(byName.greet.description).not.toContain('task_wait'); // never a task
    if (byName.approve_expense.execution) expect(byName.approve_expense.execution.taskSupport).toBe('optional'); // 2025: plain callTool may call it
    await client.close();
  });

  test('approve_expense: the handle shows the question and its schema; a bad answer is refused by key; respond completes it', async () => {
    const client = await connect();
    const handle: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 42, description: 'train ticket' } });
    expect(handle.isError).toBeFalsy();
    const { taskId, status, inputRequests } = handle.structuredContent;
    expect(taskId).toMatch(/^task_/);
    expect(status).toBe('input_required');
    expect(inputRequests.approval.params.requestedSchema.required).toEqual(['approved']);
    expect(text(handle)).toContain(taskId);
    expect(text(handle)).toContain('task_respond');
    expect(text(handle)).toContain('"approved"');

    const bad = await client.callTool({
      name: 'task_respond',
      arguments: { taskId, responses: { approval: { action: 'accept', content: { approved: 'yes' } } } },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('"approval"');
    // the refusal is a handle: the task stays reachable from it
    expect((bad as any).structuredContent).toMatchObject({ taskId, status: 'input_required' });
    const wrongKey = await client.callTool({ name: 'task_respond', arguments: { taskId, responses: { nope: { action: 'accept' } } } });
    expect(wrongKey.isError).toBe(true);
    expect(text(wrongKey)).toContain('pending: "approval"');

    const done: any = await client.callTool({
      name: 'task_respond',
      arguments: { taskId, responses: { approval: { action: 'accept', content: { approved: true, comment: 'ok' } } } },
    });
    const result = done.structuredContent?.status === 'working' ? await waitToEnd(client, taskId) : done;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Expense of 42 for "train ticket" was approved. Comment: ok');
    await client.close();
  });

  test('task_respond keyed constructor, toString, __proto__, hasOwnProperty answers nothing: refused by name, no signal recorded', async () => {
    const client = await connect();
    const handle: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 5, description: 'inherited keys' } });
    const { taskId } = handle.structuredContent;
    const responses = Object.fromEntries(
      ['constructor', 'toString', '__proto__', 'hasOwnProperty'].map((k) => [k, { action: 'accept', content: { approved: true } }]),
    );
    const refused = await client.callTool({ name: 'task_respond', arguments: { taskId, responses } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('pending: "approval"');
    const history = await stack.temporal.client.workflow.getHandle(taskId).fetchHistory();
    expect(
      (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === inputResponsesSignal.name),
    ).toEqual([]);
    await client.callTool({ name: 'task_cancel', arguments: { taskId } });
    await client.close();
  });

  test("approve_expense answered through the client's own elicitation handler", async () => {
    const asked: any[] = [];
    const client = await connect({
      onElicit: (request) => {
        asked.push(request);
        return { action: 'accept', content: { approved: true } };
      },
    });
    let result: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 7, description: 'coffee' } });
    if (result.structuredContent?.taskId) result = await waitToEnd(client, result.structuredContent.taskId);
    expect(text(result)).toBe('Expense of 7 for "coffee" was approved.');
    expect(asked).toHaveLength(1);
    await client.close();
  });

  test('a form the user dismisses (cancel) is no answer: the handle shows the question, task_respond can still answer', async () => {
    const client = await connect({ onElicit: () => ({ action: 'cancel' }) });
    const handle: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 8, description: 'dismissed' } });
    expect(handle.structuredContent).toMatchObject({ status: 'input_required' });
    expect(text(handle)).toContain('"approval"');
    const { taskId } = handle.structuredContent;
    const declined = await client.callTool({ name: 'task_respond', arguments: { taskId, responses: { approval: { action: 'decline' } } } });
    const result = running(declined) ? await waitToEnd(client, taskId) : declined;
    expect(result.isError).toBe(true); // the tool's own result: not approved
    expect(text(result)).toContain('declined');
    await client.close();
  });

  test('provision_environment longer than the bound: a handle, then task_wait until its own result', async () => {
    const client = await connect();
    const started = Date.now();
    const handle: any = await client.callTool({ name: 'provision_environment', arguments: { name: 'long', steps: 3, stepMs: 1500 } });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(handle.structuredContent).toMatchObject({ status: 'working', tool: 'provision_environment' });
    expect(text(handle)).toContain('task_wait');
    const result = await waitToEnd(client, handle.structuredContent.taskId);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Environment long provisioned in 3 steps.');
    await client.close();
  });

  test('a short task answers its own result at once', async () => {
    const client = await connect();
    const result: any = await client.callTool({ name: 'wait_and_echo', arguments: { text: 'quick', seconds: 0 } });
    expect(result.content).toEqual([{ type: 'text', text: 'quick' }]);
    await client.close();
  });

  test('task_cancel: compensation undoes the steps done, the task ends cancelled', async () => {
    const client = await connect();
    const handle: any = await client.callTool({ name: 'provision_environment', arguments: { name: 'undo', steps: 6, stepMs: 1000 } });
    const { taskId } = handle.structuredContent;
    const cancelled = await client.callTool({ name: 'task_cancel', arguments: { taskId } });
    expect(cancelled.isError).toBeFalsy();
    expect(text(cancelled)).toContain('undoes');
    const end = await waitToEnd(client, taskId);
    expect(end.structuredContent).toMatchObject({ taskId, status: 'cancelled' });
    // the cancelled state may be reported before the workflow has ended: the undo is polled for
    const undone = await waitFor(async () => {
      const files = ledgerFiles(taskId);
      const provisioned = files.filter((f) => f.startsWith('provision-')).length;
      return provisioned > 0 && files.filter((f) => f.startsWith('deprovision-')).length === provisioned ? files : undefined;
    });
    expect(undone.length).toBeGreaterThan(0);
    const again = await client.callTool({ name: 'task_cancel', arguments: { taskId } });
    expect(text(again)).toContain('already ended (cancelled)');
    await client.close();
  });

  test('unknown and malformed taskIds get one answer from every task tool', async () => {
    const client = await connect();
    const unknown = `task_${'A'.repeat(32)}`;
    const answers = [];
    for (const taskId of [unknown, 'not-a-task', '']) {
      answers.push(await client.callTool({ name: 'task_wait', arguments: { taskId } }));
      answers.push(await client.callTool({ name: 'task_cancel', arguments: { taskId } }));
      answers.push(await client.callTool({ name: 'task_respond', arguments: { taskId, responses: { approval: { action: 'decline' } } } }));
    }
    for (const a of answers)
      expect(a).toMatchObject({ isError: true, content: [{ type: 'text', text: (answers[0] as any).content[0].text }] });
    expect(text(answers[0])).toContain('unknown, expired or not yours');
    await client.close();
  });
});

test('sampling: asked of a client that declared it (input_required round), else shown pending and answered by task_respond', async () => {
  const client = new V2Client(
    { name: 'plain-sampling', version: '1.0.0' },
    { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  const asked: any[] = [];
  client.setRequestHandler('sampling/createMessage', async (request: any) => {
    asked.push(request);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  await client.connect(new V2Transport(new URL(url), { fetch: inRealmFetch }));
  const result: any = await client.callTool({ name: 'ask_model', arguments: { question: 'Capital of France?' } });
  expect(text(result)).toBe('The model said: Paris');
  expect(asked).toHaveLength(1);
  await client.close();

  const plain = await v2Client();
  const handle: any = await plain.callTool({ name: 'ask_model', arguments: { question: 'Capital of Italy?' } });
  expect(handle.structuredContent.inputRequests.answer.method).toBe('sampling/createMessage');
  expect(text(handle)).toContain('Capital of Italy?');
  const bad: any = await plain.callTool({
    name: 'task_respond',
    arguments: { taskId: handle.structuredContent.taskId, responses: { answer: { text: 'Rome' } } },
  });
  expect(bad.isError).toBe(true);
  expect(text(bad)).toContain('CreateMessageResult');
  const answer = { role: 'assistant', content: { type: 'text', text: 'Rome' }, model: 'the agent' };
  let done: any = await plain.callTool({
    name: 'task_respond',
    arguments: { taskId: handle.structuredContent.taskId, responses: { answer } },
  });
  if (running(done)) done = await waitToEnd(plain, handle.structuredContent.taskId);
  expect(text(done)).toBe('The model said: Rome');
  await plain.close();
});

test("2026 without Tasks, with elicitation: a bad answer to the input_required round is another round saying why, with the task's requestState", async () => {
  const caps = { elicitation: { form: {} } };
  const first = await call(
    url,
    'tools/call',
    { name: 'approve_expense', arguments: { amount: 9, description: 'taxi' } },
    { capabilities: caps },
  );
  expect(first.resultType).toBe('input_required');
  const { requestState } = first;
  expect(requestState).toMatch(/task_/);
  const again = await call(
    url,
    'tools/call',
    {
      name: 'approve_expense',
      arguments: { amount: 9, description: 'taxi' },
      requestState,
      inputResponses: { approval: { action: 'accept', content: { approved: 'yes' } } },
    },
    { capabilities: caps },
  );
  expect(again.resultType).toBe('input_required');
  expect(again.requestState).toBe(requestState);
  expect(again.inputRequests.approval.params.message).toMatch(/not accepted.*approved/s);
  const done = await call(
    url,
    'tools/call',
    {
      name: 'approve_expense',
      arguments: { amount: 9, description: 'taxi' },
      requestState,
      inputResponses: { approval: { action: 'accept', content: { approved: true } } },
    },
    { capabilities: caps },
  );
  expect(done.content?.[0]?.text ?? JSON.stringify(done)).toMatch(/Expense of 9 for "taxi" was approved|taskId/);
  const taskId = requestState.slice(requestState.indexOf('task_'));
  expect((await waitToEnd({ callTool: (p) => call(url, 'tools/call', p, { capabilities: {} }) }, taskId)).content[0].text).toBe(
    'Expense of 9 for "taxi" was approved.',
  );
});

test('a caller that declares Tasks sees the same tools/list as before, and no task_* tools to call', async () => {
  const { tools } = await call(url, 'tools/list');
  const names = tools.map((t: any) => t.name);
  expect(names.some((n: string) => n.startsWith('task_'))).toBe(false);
  expect(tools.find((t: any) => t.name === 'approve_expense').description).toBe(APPROVE);
  const { body } = await rpc(url, 'tools/call', { name: 'task_wait', arguments: { taskId: 'x' } });
  expect(body.error.code).toBe(-32602);
  // and a required tool still answers a CreateTaskResult to it
  const created = await call(url, 'tools/call', { name: 'approve_expense', arguments: { amount: 1, description: 'x' } });
  expect(created.resultType).toBe('task');
});

test('a 2026 tools/call without Tasks never gets a CreateTaskResult, even for a required tool', async () => {
  const result = await call(
    url,
    'tools/call',
    { name: 'approve_expense', arguments: { amount: 3, description: 'raw' } },
    { capabilities: {} },
  );
  expect(result.resultType).toBe('complete');
  expect(result.structuredContent.status).toBe('input_required');
  await call(url, 'tools/call', { name: 'task_cancel', arguments: { taskId: result.structuredContent.taskId } }, { capabilities: {} });
});

test("with authentication: task_list lists only the caller's own tasks; another caller's taskId is unknown to it", async () => {
  const alice = await v2Client({ token: 'tok-a', target: authUrl });
  const bob = await v2Client({ token: 'tok-b', target: authUrl });
  const handle = await alice.callTool({ name: 'approve_expense', arguments: { amount: 9, description: 'alice only' } });
  const { taskId } = handle.structuredContent as any;
  const listedBy = async (client: V2Client) => {
    for (let i = 0; i < 40; i++) {
      const page: any = await client.callTool({ name: 'task_list', arguments: {} });
      if (page.structuredContent.tasks.some((t: any) => t.taskId === taskId)) return page;
      await new Promise((r) => setTimeout(r, 250)); // visibility lags
    }
    return undefined;
  };
  expect(await listedBy(alice)).toBeDefined();
  const bobs: any = await bob.callTool({ name: 'task_list', arguments: {} });
  expect(bobs.structuredContent.tasks.map((t: any) => t.taskId)).not.toContain(taskId);
  const foreign: any = await bob.callTool({ name: 'task_wait', arguments: { taskId } });
  const unknown: any = await bob.callTool({ name: 'task_wait', arguments: { taskId: `task_${'B'.repeat(32)}` } });
  expect(foreign).toEqual(unknown);
  const badCursor: any = await alice.callTool({ name: 'task_list', arguments: { cursor: '!!' } });
  expect(badCursor.isError).toBe(true);
  await alice.callTool({ name: 'task_cancel', arguments: { taskId } });
  await alice.close();
  await bob.close();
});

test('--no-task-handles: no task_* tools, -32021 for a required tool, as before', async () => {
  const { tools } = await call(offUrl, 'tools/list', {}, { capabilities: {} });
  expect(tools.some((t: any) => t.name.startsWith('task_'))).toBe(false);
  expect(tools.find((t: any) => t.name === 'approve_expense').description).toBe(APPROVE);
  const { body } = await rpc(
    offUrl,
    'tools/call',
    { name: 'approve_expense', arguments: { amount: 1, description: 'x' } },
    { capabilities: {} },
  );
  expect(body.error.code).toBe(-32021);
});

test('task_respond with no answers, or arguments of the wrong type, is refused clearly', async () => {
  const handle = await call(
    url,
    'tools/call',
    { name: 'approve_expense', arguments: { amount: 2, description: 'empty' } },
    { capabilities: {} },
  );
  const { taskId } = handle.structuredContent;
  const empty = await call(url, 'tools/call', { name: 'task_respond', arguments: { taskId, responses: {} } }, { capabilities: {} });
  expect(empty).toMatchObject({ isError: true });
  expect(empty.content[0].text).toMatch(/No answers given/);
  const { body } = await rpc(url, 'tools/call', { name: 'task_wait', arguments: { taskId: 42 } }, { capabilities: {} });
  expect(body.error).toMatchObject({ code: -32602 });
  expect(body.error.message).toMatch(/taskId/);
  await call(url, 'tools/call', { name: 'task_cancel', arguments: { taskId } }, { capabilities: {} });
});

test('a task_wait the client gives up on leaves the task running (only a call abandoned before its handle cancels it)', async () => {
  const handle = await call(
    url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { text: 'still here', seconds: 3 } },
    { capabilities: {} },
  );
  const { taskId } = handle.structuredContent;
  const abort = new AbortController();
  const dropped = rpc(url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, { capabilities: {}, signal: abort.signal }).catch(
    () => 'dropped',
  );
  await new Promise((r) => setTimeout(r, 300));
  abort.abort();
  expect(await dropped).toBe('dropped');
  let result = await call(url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, { capabilities: {} });
  if (result.structuredContent?.status === 'working')
    result = await call(url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, { capabilities: {} });
  expect(result.content).toEqual([{ type: 'text', text: 'still here' }]);
});

test('without authentication there is no task_list to call', async () => {
  const { body } = await rpc(url, 'tools/call', { name: 'task_list', arguments: {} }, { capabilities: {} });
  expect(body.error.code).toBe(-32602);
});
