/** Tasks bound to their caller; network defaults (Host/Origin, body limit, no CORS). */
import http from 'node:http';
import { call, PROTOCOL, rpc } from '../support/mcp';
import { useStack } from '../support/stack';

let url: string;
const alice = { authorization: 'Bearer tok-alice-0123456789' };
const bob = { authorization: 'Bearer tok-bob-9876543210' };
const UNKNOWN_ID = 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const stack = useStack({ tokens: 'alice:tok-alice-0123456789,bob:tok-bob-9876543210' });
beforeAll(() => {
  url = stack.url;
});

describe('bearer tokens', () => {
  test.each([
    ['no token', {}],
    ['an unknown token', { authorization: 'Bearer nope' }],
    ['a malformed header', { authorization: 'Basic abc' }],
  ])('%s is refused with 401 and a Bearer challenge', async (_label, headers) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test("another principal's task answers exactly like an unknown task", async () => {
    const created = await call(
      url,
      'tools/call',
      { name: 'approve_expense', arguments: { amount: 1, description: 'x' } },
      { headers: alice },
    );
    const taskId = created.taskId;
    expect((await call(url, 'tasks/get', { taskId }, { headers: alice })).taskId).toBe(taskId);
    // wait until it asks (a task reads working until its workflow first runs), so "changed nothing" means something
    for (
      let t = Date.now();
      (await call(url, 'tasks/get', { taskId }, { headers: alice })).status !== 'input_required' && Date.now() - t < 20_000;
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [method, params] of [
      ['tasks/get', {}],
      ['tasks/update', { inputResponses: { approval: { action: 'accept', content: { approved: true } } } }],
      ['tasks/cancel', {}],
    ] as const) {
      const foreign = await rpc(url, method, { taskId, ...params }, { headers: bob });
      const unknown = await rpc(url, method, { taskId: UNKNOWN_ID, ...params }, { headers: { ...bob, 'mcp-name': UNKNOWN_ID } });
      expect(foreign.status).toBe(unknown.status);
      expect({ ...foreign.body, id: 0 }).toEqual({ ...unknown.body, id: 0 });
      expect(foreign.body.error.code).toBe(-32602);
    }
    // bob's update and cancel changed nothing
    expect((await call(url, 'tasks/get', { taskId }, { headers: alice })).status).toBe('input_required');
    const description = await stack.temporal.client.workflow.getHandle(taskId).describe();
    expect((description.memo?.mcpTask as { owner: string }).owner).toMatch(/^o1_/); // a keyed hash, never the principal
    expect(JSON.stringify(description.searchAttributes)).not.toMatch(/alice/);
    expect(await description.staticSummary()).not.toMatch(/alice|tok-/);
    await call(url, 'tasks/cancel', { taskId }, { headers: alice });
  });
});

/** A valid tools/list sent with node:http, which (unlike fetch) sends the Host header it is given. */
function toolsList(target: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': PROTOCOL,
          'mcp-method': 'tools/list',
          ...alice,
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('network defaults', () => {
  test('a request from a foreign Host or Origin is refused (DNS rebinding); a valid one passes', async () => {
    expect(await toolsList(url, {})).toBe(200);
    expect(await toolsList(url, { host: 'evil.example.com' })).toBe(403);
    expect(await toolsList(url, { origin: 'http://evil.example.com' })).toBe(403);
  });

  test('--allowed-host and --allowed-origin admit the named ones only', async () => {
    // the variadic flags are the point: a `serve` process
    const { url: open } = await stack.serveProcess(['--allowed-host', 'mcp.internal', '--allowed-origin', 'app.example.com'], {
      MCP_AUTH_TOKENS: 'alice:tok-alice-0123456789',
    });
    expect(await toolsList(open, { host: 'mcp.internal', origin: 'https://app.example.com' })).toBe(200);
    expect(await toolsList(open, { origin: 'https://evil.example.com' })).toBe(403);
    expect(await toolsList(open, { host: 'other.internal' })).toBe(403);
  });

  test('a body over the limit is answered 413 before it is read', async () => {
    // declare 5 MiB and send nothing: the answer must come from the declared length alone
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 5 * 1024 * 1024, ...alice } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });

  test('CORS is off: no Access-Control-Allow-Origin, preflight not allowed', async () => {
    const { status, body } = await rpc(url, 'tools/list', {}, { headers: { ...alice, origin: 'http://localhost:5173' } });
    expect(status).toBe(200);
    expect(body.result.tools.length).toBeGreaterThan(0);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:5173', ...alice },
      body: '{}',
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a path other than /mcp is 404', async () => {
    const res = await fetch(url.replace('/mcp', '/other'), { method: 'POST', headers: alice, body: '{}' });
    expect(res.status).toBe(404);
  });
});
