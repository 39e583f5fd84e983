/**
 * Issue 24, items 1-3 and 6 over HTTP against real Temporal: every stream or held call that
 * watches a task counts against the watch limits; one body parse with a depth limit; running
 * task quotas counted in Temporal; precise errors for bad inputs.
 */
import { call, DECLARING, rpc, startServe, startWorker, subscribe } from '../support/mcp';
import { ROOT, spawnCli, stopAllAfter } from '../support/processes';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';
import { parseSamples, sampleSum, scrape } from '../support/prometheus';

const TOKENS = {
  MCP_AUTH_TOKENS: 'alice:tok-alice-0123456789,bob:tok-bob-0123456789,carol:tok-carol-0123456789',
  MCP_OWNER_KEY: 'a-test-owner-key-0123456789',
};
const alice = { authorization: 'Bearer tok-alice-0123456789' };
const bob = { authorization: 'Bearer tok-bob-0123456789' };
const carol = { authorization: 'Bearer tok-carol-0123456789' };
const LIMITS = ['--max-subscribed-tasks-per-caller', '2', '--max-subscribed-tasks', '3'];

let temporal: TestTemporal;
/** Task handles on (held bounded waits), watch limits 2 per caller / 3 per replica. */
let handlesUrl: string;
/** No task handles: a call without Tasks is held synchronously; same limits. */
let syncUrl: string;
/** Quotas: 2 running tasks per caller, 4 per server. */
let quotaUrl: string;

beforeAll(async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  [{ url: handlesUrl }, { url: syncUrl }, { url: quotaUrl }] = await Promise.all([
    startServe(
      temporal.address,
      [...LIMITS, '--handle-wait-ms', '30000', '--max-running-tasks-per-caller', '0', '--max-running-tasks', '0'],
      TOKENS,
    ),
    startServe(
      temporal.address,
      [...LIMITS, '--no-task-handles', '--max-running-tasks-per-caller', '0', '--max-running-tasks', '0'],
      TOKENS,
    ),
    startServe(temporal.address, ['--max-running-tasks-per-caller', '2', '--max-running-tasks', '4', '--quota-lag-ms', '300'], TOKENS),
  ]);
});

stopAllAfter(() => temporal);

// a failed test must not leave running tasks behind: quotas count them
afterEach(async () => {
  // raw listing: a task written with a payload codec cannot be decoded here
  const { executions } = await temporal.client.workflowService.listWorkflowExecutions({
    namespace: 'default',
    query: 'ExecutionStatus = "Running"',
  });
  await Promise.all(
    (executions ?? []).map((e) =>
      temporal.client.workflow
        .getHandle(e.execution!.workflowId!)
        .terminate('test cleanup')
        .catch(() => undefined),
    ),
  );
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOT_DECLARING = {};

async function startTask(url: string, headers: Record<string, string>, seconds = 600): Promise<string> {
  return (await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'held', seconds } }, { headers })).taskId;
}

/** Cancels the tasks and waits until Temporal has closed them (quotas and later tests count running ones). */
async function cancelAll(url: string, headers: Record<string, string>, ids: string[]) {
  await Promise.all(ids.map((taskId) => call(url, 'tasks/cancel', { taskId }, { headers }).catch(() => undefined)));
  await Promise.all(
    ids.map((id) =>
      temporal.client.workflow
        .getHandle(id)
        .result()
        .catch(() => undefined),
    ),
  );
}

/**
 * A request whose answer may be held open (a 2025 tasks/result, a held tools/call): resolves
 * with the JSON-RPC error it was refused with, or `held` when nothing came within `ms`.
 */
async function heldOrRefused(url: string, body: object, headers: Record<string, string>, ms = 1500) {
  const abort = new AbortController();
  const answered = (async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return JSON.parse(text.startsWith('{') ? text : text.split('data:').pop()!);
      text += new TextDecoder().decode(chunk.value);
      if (text.startsWith('{')) continue;
      const frames = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5));
      const answer = frames
        .map((f) => {
          try {
            return JSON.parse(f);
          } catch {
            return undefined;
          }
        })
        .find((m) => m && 'id' in m && !('method' in m));
      if (answer) return answer;
    }
  })().catch(() => undefined);
  const outcome = await Promise.race([answered, sleep(ms).then(() => 'held' as const)]);
  if (outcome === 'held') return { held: true as const, close: () => abort.abort() };
  abort.abort();
  return { held: false as const, answer: outcome, close: () => undefined };
}

const legacyResult = (taskId: string, id: number) => ({ jsonrpc: '2.0', id, method: 'tasks/result', params: { taskId } });
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const modernCall = (name: string, args: object, capabilities: object, id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    },
  },
});
const MODERN = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
const LIMIT_ERROR = (scope: string, limit: number) => ({
  code: -32603,
  message: expect.stringMatching(new RegExp(`^Watch limit reached: at most ${limit} watched tasks .* per ${scope} at once$`)),
  data: { scope, limit },
});

describe('item 1: every open stream or held call that watches a task counts', () => {
  test('2025 tasks/result streams: past the per-caller limit the next one is refused with the limit in data; a closed one gives its place back', async () => {
    const ids = await Promise.all([1, 2, 3].map(() => startTask(syncUrl, alice)));
    const open = [
      await heldOrRefused(syncUrl, legacyResult(ids[0], 1), { ...LEGACY, ...alice }),
      await heldOrRefused(syncUrl, legacyResult(ids[1], 2), { ...LEGACY, ...alice }),
    ];
    expect(open.every((s) => s.held)).toBe(true);
    const third = await heldOrRefused(syncUrl, legacyResult(ids[2], 3), { ...LEGACY, ...alice });
    expect(third).toMatchObject({ held: false, answer: { id: 3, error: LIMIT_ERROR('caller', 2) } });
    open[0].close();
    await waitFor(async () => {
      const again = await heldOrRefused(syncUrl, legacyResult(ids[2], 4), { ...LEGACY, ...alice }, 800);
      if (again.held) return again;
      return undefined;
    }).then((s) => s.close());
    open[1].close();
    await cancelAll(syncUrl, alice, ids);
  });

  test('held synchronous tools/call: counted, refused past the limit before any workflow starts; mixed with a subscription and a tasks/result stream', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => startTask(syncUrl, alice)));
    const sub = await subscribe(syncUrl, [a], { headers: alice });
    expect(sub.status).toBe(200);
    const stream = await heldOrRefused(syncUrl, legacyResult(b, 10), { ...LEGACY, ...alice });
    expect(stream.held).toBe(true);
    const before = await runningCount();
    const sync = await heldOrRefused(syncUrl, modernCall('wait_and_echo', { text: 'sync', seconds: 600 }, NOT_DECLARING, 11), {
      ...MODERN('wait_and_echo'),
      ...alice,
    });
    expect(sync).toMatchObject({ held: false, answer: { id: 11, error: LIMIT_ERROR('caller', 2) } });
    expect(await runningCount()).toBe(before); // nothing was started for the refused call
    // bob may hold one: the replica then holds 3, its limit
    const bobs = await heldOrRefused(
      syncUrl,
      modernCall('wait_and_echo', { text: 'sync', seconds: 1 }, NOT_DECLARING, 12),
      { ...MODERN('wait_and_echo'), ...bob },
      300,
    );
    expect(bobs.held).toBe(true);
    const carols = await heldOrRefused(syncUrl, modernCall('wait_and_echo', { text: 'sync', seconds: 1 }, NOT_DECLARING, 13), {
      ...MODERN('wait_and_echo'),
      ...carol,
    });
    expect(carols).toMatchObject({ answer: { error: LIMIT_ERROR('server', 3) } });
    bobs.close();
    sub.close();
    stream.close();
    await cancelAll(syncUrl, alice, [a, b]);
  });

  test('the bounded wait of a call without Tasks (task handles) and task_wait are counted too', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => startTask(handlesUrl, alice)));
    const waits = [
      await heldOrRefused(handlesUrl, modernCall('task_wait', { taskId: a }, NOT_DECLARING, 20), { ...MODERN('task_wait'), ...alice }, 500),
      await heldOrRefused(handlesUrl, modernCall('task_wait', { taskId: b }, NOT_DECLARING, 21), { ...MODERN('task_wait'), ...alice }, 500),
    ];
    expect(waits.every((w) => w.held)).toBe(true);
    const before = await runningCount();
    const handleCall = await heldOrRefused(handlesUrl, modernCall('wait_and_echo', { text: 'h', seconds: 600 }, NOT_DECLARING, 22), {
      ...MODERN('wait_and_echo'),
      ...alice,
    });
    expect(handleCall).toMatchObject({ answer: { id: 22, error: LIMIT_ERROR('caller', 2) } });
    expect(await runningCount()).toBe(before);
    const third = await heldOrRefused(handlesUrl, modernCall('task_wait', { taskId: a }, NOT_DECLARING, 23), {
      ...MODERN('task_wait'),
      ...alice,
    });
    expect(third).toMatchObject({ answer: { id: 23, error: LIMIT_ERROR('caller', 2) } });
    waits.forEach((w) => w.close());
    // the places come back when the waits end (the client left)
    await waitFor(async () => {
      const w = await heldOrRefused(
        handlesUrl,
        modernCall('task_wait', { taskId: a }, NOT_DECLARING, 24),
        { ...MODERN('task_wait'), ...alice },
        500,
      );
      w.close();
      return w.held ? true : undefined;
    });
    await cancelAll(handlesUrl, alice, [a, b]);
  });
});

/** Running workflows in the namespace, once visibility has caught up (two reads 500 ms apart agree). */
async function runningCount(): Promise<number> {
  const read = async () =>
    Number(
      (await temporal.client.workflowService.countWorkflowExecutions({ namespace: 'default', query: 'ExecutionStatus = "Running"' })).count,
    );
  for (let last = await read(); ;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
}

describe('item 2: a nesting-depth limit before parsing, one parse per request', () => {
  test('a 4 MB body of [ is refused at once with -32602 and the limit in data (another caller: bench/hostile-body.js)', async () => {
    const body = '['.repeat(4 * 1024 * 1024 - 100);
    const started = Date.now();
    const res = await fetch(syncUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...MODERN('tools/call'), ...alice },
      body,
    });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32602, message: 'Invalid params: the request nests JSON deeper than 64 levels', data: { maxDepth: 64 } },
    });
    expect(elapsed).toBeLessThan(1000); // parsing it took 0.6-1.7 s of event loop before
  });

  test('a streamed body (no content-length) over the size limit is cut off at the limit: 413', async () => {
    const piece = new TextEncoder().encode(`"${'x'.repeat(1024 * 1024 - 2)}"`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (c) => (sent++ < 5 ? c.enqueue(piece) : c.close()) });
    const res = await fetch(syncUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...MODERN('tools/call'), ...alice },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${4 * 1024 * 1024} bytes` },
    });
  });

  test('tool arguments nested 10,000 deep (as JSON, or past the limit by one): -32602, short; 60 deep is a normal call', async () => {
    const deep = `${'{"a":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
    const rawBody = JSON.stringify(modernCall('wait_and_echo', { text: '@', seconds: 0 }, DECLARING, 40)).replace('"@"', deep);
    const refused = await rpc(syncUrl, 'tools/call', { name: 'wait_and_echo' }, { headers: alice, rawBody });
    expect(refused.body.error).toMatchObject({ code: -32602, data: { maxDepth: 64 } });
    expect(refused.body.error.message.length).toBeLessThan(100);
    let fine: unknown = 'x';
    for (let i = 0; i < 58; i++) fine = [fine];
    const ok = await rpc(syncUrl, 'tools/call', { name: 'wait_and_echo', arguments: { text: fine, seconds: 0 } }, { headers: alice });
    expect(ok.body.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments for tool wait_and_echo: text:/),
    }); // parsed and checked by the schema
  });

  test('without Mcp-Name / Mcp-Method the headers are still filled from the one parse', async () => {
    const taskId = await startTask(syncUrl, alice);
    const got = await rpc(syncUrl, 'tasks/get', { taskId }, { headers: { ...alice, 'mcp-name': undefined, 'mcp-method': undefined } });
    expect(got.body.result).toMatchObject({ taskId, status: 'working' });
    await cancelAll(syncUrl, alice, [taskId]);
  });
});

describe('item 3: running tasks per caller and per server, counted in Temporal', () => {
  test('past the per-caller cap the start is refused (nothing starts); past the per-server cap too; a task that ended frees its place', async () => {
    const mine = [await startTask(quotaUrl, alice), await startTask(quotaUrl, alice)];
    const before = await runningCount();
    const refused = await rpc(
      quotaUrl,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } },
      { headers: alice },
    );
    expect(refused.body.error).toEqual({
      code: -32603,
      message: 'Task quota reached: at most 2 running tasks per caller; end or cancel one first',
      data: { scope: 'caller', limit: 2, running: 2 },
    });
    expect(await runningCount()).toBe(before);
    // a held call without Tasks and a synchronous call count the same way (they start the same workflow)
    const handle = await rpc(
      quotaUrl,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } },
      { headers: alice, capabilities: NOT_DECLARING },
    );
    expect(handle.body.error).toMatchObject({ code: -32603, data: { scope: 'caller', limit: 2 } });
    const bobs = [await startTask(quotaUrl, bob), await startTask(quotaUrl, bob)];
    const carols = await rpc(quotaUrl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } }, { headers: carol });
    expect(carols.body.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('per server'),
      data: { scope: 'server', limit: 4 },
    });
    await cancelAll(quotaUrl, alice, [mine[0]]);
    // the count refreshes within a second; the lag window (300 ms here) has passed
    const again = await waitFor(
      async () =>
        (await rpc(quotaUrl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } }, { headers: alice })).body
          .result?.taskId,
      10_000,
    );
    await cancelAll(quotaUrl, alice, [mine[1], again]);
    await cancelAll(quotaUrl, bob, bobs);
  });

  test('a burst of concurrent starts does not get past the cap (local increments cover the visibility lag)', async () => {
    await sleep(1200); // the counts cached during the last test (tasks it ended) refresh
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        rpc(quotaUrl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'burst', seconds: 600 } }, { headers: carol }),
      ),
    );
    const started = replies.map((r) => r.body.result?.taskId).filter(Boolean);
    expect(started.length).toBeLessThanOrEqual(2);
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(replies.filter((r) => r.body.error?.data?.scope === 'caller')).toHaveLength(8 - started.length);
    await cancelAll(quotaUrl, carol, started);
  });
});

describe('item 6: precise errors', () => {
  test('tasks/update whose inputResponses is a string, an array, null or missing: -32602, and nothing happens', async () => {
    const taskId = (
      await call(syncUrl, 'tools/call', { name: 'approve_expense', arguments: { amount: 5, description: 'x' } }, { headers: alice })
    ).taskId;
    await waitFor(async () =>
      (await call(syncUrl, 'tasks/get', { taskId }, { headers: alice })).status === 'input_required' ? true : undefined,
    );
    for (const bad of ['yes', ['a'], null, undefined]) {
      const reply = await rpc(
        syncUrl,
        'tasks/update',
        { taskId, ...(bad === undefined ? {} : { inputResponses: bad }) },
        { headers: alice },
      );
      expect(reply.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('inputResponses must be an object') });
    }
    expect((await call(syncUrl, 'tasks/get', { taskId }, { headers: alice })).status).toBe('input_required');
    // an answer over the payload limit: -32602 naming the key, not "Temporal is unavailable"
    const big = { action: 'accept', content: { approved: true, note: 'x'.repeat(1_600_000) } };
    const tooBig = await rpc(syncUrl, 'tasks/update', { taskId, inputResponses: { approval: big } }, { headers: alice });
    expect(tooBig.body.error?.code).toBe(-32602);
    expect(tooBig.body.error?.message).toMatch(
      /^inputResponses\.approval: the answer is \d+ bytes, over the 1500000-byte limit of a Temporal payload$/,
    );
    await cancelAll(syncUrl, alice, [taskId]);
  });

  test('a tasks/list cursor that is not ours is -32602 at once (it waited 10-15 s for DEADLINE_EXCEEDED)', async () => {
    for (const cursor of ['AAAA', 'bm90LW91cnM.AAAAAAAAAAAAAAAAAAAAAA', '!!']) {
      const started = Date.now();
      const { status, text } = await post2025(syncUrl, { id: 30, method: 'tasks/list', params: { cursor } }, alice);
      expect(status).toBe(200);
      expect(JSON.parse(text.startsWith('{') ? text : text.split('data:').pop()!)).toMatchObject({
        error: { code: -32602, message: 'Invalid cursor' },
      });
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });

  test('tools/call without name and initialize without params: -32602 with a short message', async () => {
    const noName = await rpc(syncUrl, 'tools/call', { arguments: {} }, { headers: { ...alice, 'mcp-name': undefined } });
    expect(noName.body.error).toEqual({ code: -32602, message: 'Invalid params: tools/call needs params.name, the name of a tool' });
    const init = await post2025(syncUrl, { id: 31, method: 'initialize' }, alice);
    const answer = JSON.parse(init.text.startsWith('{') ? init.text : init.text.split('data:').pop()!);
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 31,
      error: { code: -32602, message: 'Invalid params: initialize needs params {protocolVersion, capabilities, clientInfo}' },
    });
  });
});

async function post2025(url: string, message: object, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return { status: res.status, text: await res.text() };
}

void DECLARING;

describe('item 2: the body is parsed once per request, shared by the handlers in front and the SDK', () => {
  test('tasks/get without routing headers, subscriptions/listen, tools/call: each body text goes through JSON.parse once', async () => {
    const { createMcpTasksServer } = await import('../../src/mcp/server');
    const { tools } = await import('../../examples/demo/index');
    const server = await createMcpTasksServer({
      client: temporal.client,
      tools,
      log: () => undefined,
      maxRunningTasksPerCaller: 0,
      maxRunningTasks: 0,
    });
    const parse = JSON.parse;
    const texts: string[] = [];
    JSON.parse = ((text: string, reviver?: never) => {
      texts.push(text);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': DECLARING,
      };
      const send = async (method: string, params: object, headers: Record<string, string>) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } });
        const res = await server.fetch(
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: {
              host: '127.0.0.1',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2026-07-28',
              ...headers,
            },
            body,
          }),
        );
        const text = await res.text();
        return { parses: texts.filter((t) => t === body).length, text };
      };
      const created = await send(
        'tools/call',
        { name: 'wait_and_echo', arguments: { text: 'once', seconds: 0 } },
        { 'mcp-method': 'tools/call', 'mcp-name': 'wait_and_echo' },
      );
      expect(created.parses).toBe(1);
      const taskId = parse(created.text.startsWith('{') ? created.text : created.text.split('data:').pop()!).result.taskId;
      expect((await send('tasks/get', { taskId }, {})).parses).toBe(1); // Mcp-Method / Mcp-Name filled from the same parse
      expect(
        (await send('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { 'mcp-method': 'subscriptions/listen' })).parses,
      ).toBe(1);
    } finally {
      JSON.parse = parse;
      await server.close();
    }
  });
});

test('item 9: two principals with the same static token: serve refuses to start, naming both', async () => {
  const proc = spawnCli(['serve', '--port', '0'], {
    TEMPORAL_ADDRESS: temporal.address,
    MCP_AUTH_TOKENS: 'alice:tok-shared-0123456789,bob:tok-shared-0123456789',
  });
  await proc.waitFor(/the same bearer token is given to two principals \(alice and bob\)/);
  expect(await proc.stop()).not.toBe(0);
});

test('item 7: a 2025 answer that does not fit is refused visibly (the POST says why) and the question comes again on the stream', async () => {
  const taskId = (
    await call(syncUrl, 'tools/call', { name: 'approve_expense', arguments: { amount: 7, description: 'reask' } }, { headers: alice })
  ).taskId;
  const abort = new AbortController();
  const res = await fetch(syncUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY, ...alice },
    body: JSON.stringify(legacyResult(taskId, 50)),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  let buffer = '';
  const nextMessage = async (match: (m: any) => boolean) => {
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('');
        if (data && match(JSON.parse(data))) return JSON.parse(data);
        continue;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += new TextDecoder().decode(value);
    }
  };
  const asked = await nextMessage((m) => m.method === 'elicitation/create');
  expect(asked.id).toBe(`mcp-task-input:${taskId}:approval`);
  const answer = (result: object) =>
    fetch(syncUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY, ...alice },
      body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result }),
    });
  const bad = await answer({ action: 'accept', content: { approved: 'certainly' } });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({
    id: asked.id,
    error: {
      code: -32602,
      message: expect.stringMatching(/^Invalid input response: inputResponses\.approval: content does not fit/),
      data: { key: 'approval' },
    },
  });
  const again = await nextMessage((m) => m.method === 'elicitation/create');
  expect(again).toEqual(asked);
  expect((await answer({ action: 'accept', content: { approved: true } })).status).toBe(202);
  const end = await nextMessage((m) => m.id === 50);
  expect(end.result.content[0].text).toBe('Expense of 7 for "reask" was approved.');
  abort.abort();
});

test('item 6: one task on a tasks/list page that cannot be decoded is left out, not the page', async () => {
  const codec = {
    TEMPORAL_PAYLOAD_CODEC: path.join(ROOT, 'docs/examples/encryption-codec.js'),
    MCP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
  const { url: codecUrl } = await startServe(temporal.address, [], { ...TOKENS, ...codec });
  const sealed = await startTask(codecUrl, alice); // its memo is ciphertext to a server without the codec
  const plain = await startTask(syncUrl, alice);
  const { text } = await post2025(syncUrl, { id: 60, method: 'tasks/list', params: {} }, alice);
  const page = JSON.parse(text.startsWith('{') ? text : text.split('data:').pop()!);
  expect(page.error).toBeUndefined();
  const ids = page.result.tasks.map((t: { taskId: string }) => t.taskId);
  expect(ids).toContain(plain);
  expect(ids).not.toContain(sealed);
});

test('item 3 of issue 35: the refusals above are counted at GET /metrics by limit, and the running-task cap is exported', async () => {
  const texts = await Promise.all([handlesUrl, syncUrl, quotaUrl].map((u) => scrape(u.replace(/\/mcp$/, '/metrics'))));
  const refused = (limit: string) => texts.reduce((n, t) => n + sampleSum(parseSamples(t), 'mcp_tasks_refusals_total', { limit }), 0);
  expect(refused('watches_per_caller')).toBeGreaterThanOrEqual(4);
  expect(refused('watches')).toBeGreaterThanOrEqual(1);
  expect(refused('running_tasks_per_caller')).toBeGreaterThanOrEqual(2);
  expect(refused('running_tasks')).toBeGreaterThanOrEqual(1);
  const quota = parseSamples(texts[2]);
  expect(sampleSum(quota, 'mcp_tasks_running_tasks_limit')).toBe(4);
  expect(sampleSum(quota, 'mcp_tasks_watches_limit')).toBe(10_000);
});
