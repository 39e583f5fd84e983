/**
 * The server's probes against a real Temporal dev server, reached through a TCP proxy that can
 * cut it off: /healthz (liveness) answers 200 whatever Temporal does; /readyz answers 503 with
 * the reason while Temporal is unreachable and 200 once it answers again.
 */
import { Client, Connection } from '@temporalio/client';
import { createMcpTasksServer, type McpTasksServer } from '../../src/mcp/server';
import type { RunningHttpServer } from '../../src/mcp/http/http-server';
import { startTcpProxy } from '../support/tcp-proxy';
import { startTestTemporal, TestTemporal } from '../support/temporal';

let temporal: TestTemporal | undefined;
let proxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
let connection: Connection | undefined;
let server: McpTasksServer | undefined;
const listening: RunningHttpServer[] = [];
afterAll(async () => {
  await Promise.all(listening.map((l) => l.close()));
  await server?.close();
  await connection?.close();
  await proxy?.close();
  await temporal?.stop();
});

async function probe(url: string, method = 'GET'): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('/healthz stays 200 while Temporal is unreachable; /readyz answers 503 with the reason, then 200 again', async () => {
  temporal = await startTestTemporal();
  proxy = await startTcpProxy(temporal.address);
  connection = await Connection.connect({ address: proxy.address });
  server = await createMcpTasksServer({ client: new Client({ connection, namespace: 'default' }), tools: [], log: () => undefined });
  const http = await server.listen({ port: 0 });
  listening.push(http);
  const base = http.url.replace(/\/mcp$/, '');

  expect(await probe(`${base}/healthz`)).toEqual({ status: 200, body: { ok: true } });
  expect(await probe(`${base}/readyz`)).toEqual({ status: 200, body: { ok: true, namespace: 'default' } });

  proxy.cut();
  const down = await eventually('/readyz 503', async () => {
    const r = await probe(`${base}/readyz`);
    return r.status === 503 ? r : undefined;
  });
  expect(down.body).toMatchObject({
    ok: false,
    namespace: 'default',
    reason: expect.stringMatching(/^Temporal does not answer DescribeNamespace: /),
  });
  expect(await probe(`${base}/healthz`)).toEqual({ status: 200, body: { ok: true } });
  expect((await probe(`${base}/healthz`, 'HEAD')).status).toBe(200);
  expect((await probe(`${base}/readyz`, 'HEAD')).status).toBe(503);

  proxy.restore();
  await eventually('/readyz 200', async () => ((await probe(`${base}/readyz`)).status === 200 ? true : undefined), 60_000);
  expect((await fetch(`${base}/other`)).status).toBe(404);
  expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(404);
});

test('/readyz also asks a check of the process (a worker beside the server): 503 with its reason, or what a throw says', async () => {
  let answer: () => Promise<{ ok: boolean; reason?: string }> = async () => ({ ok: false, reason: 'worker is DRAINING, not RUNNING' });
  const http = await server!.listen({ port: 0, alsoReady: () => answer() });
  listening.push(http);
  const base = http.url.replace(/\/mcp$/, '');
  expect(await probe(`${base}/readyz`)).toEqual({ status: 503, body: { ok: false, reason: 'worker is DRAINING, not RUNNING' } });
  answer = async () => {
    throw new Error('health check broke');
  };
  expect(await probe(`${base}/readyz`)).toEqual({ status: 503, body: { ok: false, reason: 'health check broke' } });
  answer = async () => ({ ok: true });
  expect((await probe(`${base}/readyz`)).status).toBe(200);
  expect((await probe(`${base}/healthz`)).status).toBe(200);
});
