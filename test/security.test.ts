/** Tasks bound to their caller; network defaults (Host/Origin, body limit, no CORS). */
import http from 'node:http';
import { call, rpc, startServe, startWorker } from './support/mcp';
import { stopAllAfter } from './support/processes';
import { startTestTemporal, TestTemporal } from './support/temporal';

let temporal: TestTemporal;
let url: string;
const alice = { authorization: 'Bearer tok-alice-0123456789' };
const bob = { authorization: 'Bearer tok-bob-9876543210' };
const UNKNOWN_ID = 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

beforeAll(async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  ({ url } = await startServe(temporal.address, [], { MCP_AUTH_TOKENS: 'alice:tok-alice-0123456789,bob:tok-bob-9876543210' }));
});

stopAllAfter(() => temporal);

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
    const created = await call(url, 'tools/call', { name: 'approve_expense', arguments: { amount: 1, description: 'x' } }, { headers: alice });
    const taskId = created.taskId;
    expect((await call(url, 'tasks/get', { taskId }, { headers: alice })).taskId).toBe(taskId);
    for (const [method, params] of [['tasks/get', {}], ['tasks/update', { inputResponses: { approval: { action: 'accept', content: { approved: true } } } }], ['tasks/cancel', {}]] as const) {
      const foreign = await rpc(url, method, { taskId, ...params }, { headers: bob });
      const unknown = await rpc(url, method, { taskId: UNKNOWN_ID, ...params }, { headers: { ...bob, 'mcp-name': UNKNOWN_ID } });
      expect(foreign.status).toBe(unknown.status);
      expect({ ...foreign.body, id: 0 }).toEqual({ ...unknown.body, id: 0 });
      expect(foreign.body.error.code).toBe(-32602);
    }
    // bob's update and cancel changed nothing
    expect((await call(url, 'tasks/get', { taskId }, { headers: alice })).status).toBe('input_required');
    const description = await temporal.client.workflow.getHandle(taskId).describe();
    expect((description.memo?.mcpTask as { owner: string }).owner).toBe('alice');
    expect(JSON.stringify(description.searchAttributes)).not.toMatch(/alice/);
    expect(await description.staticSummary()).not.toMatch(/alice|tok-/);
    await call(url, 'tasks/cancel', { taskId }, { headers: alice });
  });
});

describe('network defaults', () => {
  test('a request from a foreign Host or Origin is refused (DNS rebinding)', async () => {
    const evilHost = await fetch(url, { method: 'POST', headers: { host: 'evil.example.com', 'content-type': 'application/json', ...alice }, body: '{}' });
    const evilOrigin = await fetch(url, { method: 'POST', headers: { origin: 'http://evil.example.com', 'content-type': 'application/json', ...alice }, body: '{}' });
    expect(evilHost.status).toBeGreaterThanOrEqual(400);
    expect(evilHost.status).toBeLessThan(500);
    expect(evilOrigin.status).toBe(403);
  });

  test('a body over the limit is answered 413 before it is read', async () => {
    // declare 5 MiB and send nothing: the answer must come from the declared length alone
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 5 * 1024 * 1024, ...alice } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });

  test('CORS is off: no Access-Control-Allow-Origin, preflight not allowed', async () => {
    const { status, body } = await rpc(url, 'tools/list', {}, { headers: { ...alice, origin: 'http://localhost:5173' } });
    expect(status).toBe(200);
    expect(body.result.tools.length).toBeGreaterThan(0);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://localhost:5173', ...alice }, body: '{}' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a path other than /mcp is 404', async () => {
    const res = await fetch(url.replace('/mcp', '/other'), { method: 'POST', headers: alice, body: '{}' });
    expect(res.status).toBe(404);
  });
});
