/** GET /metrics on a port of its own, and how a request's method and outcome are read. */
import { carriesError, listenMetrics, methodOf, recordRequest } from '../../../../src/mcp/http/metrics-http';
import { Gauge } from 'prom-client';
import { registry } from '../../../../src/tasks/metrics';
import { parseSamples, sampleSum } from '../../../support/prometheus';

const requests = async (labels: Record<string, string>) =>
  sampleSum(parseSamples(await registry.metrics()), 'mcp_tasks_requests_total', labels);

test('a port of its own serves /metrics (with the extra text), HEAD without a body, and 404 elsewhere', async () => {
  const own = await listenMetrics('127.0.0.1', 0, async () => '# TYPE temporal_extra gauge\ntemporal_extra 1\n');
  try {
    const text = await (await fetch(own.url)).text();
    expect(text).toMatch(/^# TYPE mcp_tasks_requests_total counter$/m);
    expect(text).toMatch(/^temporal_extra 1$/m);
    const head = await fetch(own.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(own.url.replace('/metrics', '/mcp'))).status).toBe(404);
  } finally {
    await own.close();
  }
});

test('extra text that cannot be read (dev: the SDK endpoint not up yet) leaves the server’s own metrics served', async () => {
  const own = await listenMetrics('127.0.0.1', 0, async () => {
    throw new Error('connection refused');
  });
  try {
    const response = await fetch(own.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^# TYPE mcp_tasks_temporal_up gauge$/m);
  } finally {
    await own.close();
  }
});

test('a series that cannot be collected answers 500 with the reason, not a partial page', async () => {
  new Gauge({
    name: 'mcp_tasks_test_broken',
    help: 'a collect that fails',
    registers: [registry],
    collect() {
      throw new Error('collect failed');
    },
  });
  const own = await listenMetrics('127.0.0.1', 0);
  try {
    const response = await fetch(own.url);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('metrics: collect failed\n');
  } finally {
    registry.removeSingleMetric('mcp_tasks_test_broken');
    await own.close();
  }
});

test('methodOf: the JSON-RPC method, batch, response (a POSTed answer), or the HTTP method', () => {
  expect(methodOf({ jsonrpc: '2.0', id: 1, method: 'tasks/get' }, 'POST')).toBe('tasks/get');
  expect(methodOf([{ method: 'ping' }], 'POST')).toBe('batch');
  expect(methodOf({ jsonrpc: '2.0', id: 'e1', result: {} }, 'POST')).toBe('response');
  expect(methodOf(undefined, 'GET')).toBe('GET');
});

test('carriesError: a JSON-RPC error, alone or in a batch; a result (even one that mentions "error") is not', () => {
  expect(carriesError('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}')).toBe(true);
  expect(carriesError('[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}]')).toBe(true);
  expect(carriesError('{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"\\"error\\": no"}]}}')).toBe(false);
  expect(carriesError('not json "error"')).toBe(false);
});

test('recordRequest: an HTTP error is refused, a JSON-RPC error is error, a stream is ok', async () => {
  const before = {
    refused: await requests({ method: 'tools/list', outcome: 'refused' }),
    error: await requests({ method: 'tools/list', outcome: 'error' }),
    ok: await requests({ method: 'tools/list', outcome: 'ok' }),
  };
  await recordRequest('tools/list', new Response('no', { status: 401 }), performance.now());
  await recordRequest('tools/list', Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } }), performance.now());
  await recordRequest('tools/list', new Response('data: {}\n\n', { headers: { 'content-type': 'text/event-stream' } }), performance.now());
  expect(await requests({ method: 'tools/list', outcome: 'refused' })).toBe(before.refused + 1);
  expect(await requests({ method: 'tools/list', outcome: 'error' })).toBe(before.error + 1);
  expect(await requests({ method: 'tools/list', outcome: 'ok' })).toBe(before.ok + 1);
});

test('recordRequest hands on the answer it read: the same status, headers and body', async () => {
  const reply = { jsonrpc: '2.0', id: 7, result: { tools: [] } };
  const sent = Response.json(reply, { status: 200, headers: { 'mcp-session-id': 's1' } });
  const answer = await recordRequest('tools/list', sent, performance.now());
  expect(answer.status).toBe(200);
  expect(answer.headers.get('mcp-session-id')).toBe('s1');
  expect(answer.headers.get('content-type')).toContain('application/json');
  expect(await answer.json()).toEqual(reply);
  const stream = new Response('data: {}\n\n', { headers: { 'content-type': 'text/event-stream' } });
  expect(await recordRequest('tools/list', stream, performance.now())).toBe(stream); // a stream is not read
});
