/**
 * The HTTP side of the metrics (src/tasks/metrics.ts): GET /metrics on the MCP port or a port of
 * its own, and each MCP request's method, outcome and latency.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics, metricsEnabled, renderMetrics } from '../../tasks/metrics';

export const METRICS_PATH = '/metrics';

/** Text in the Prometheus format another source adds to the server's own (dev: its embedded worker's SDK metrics). */
export type ExtraMetrics = () => Promise<string>;

/** Answers GET/HEAD /metrics on Node's http. */
export function serveMetrics(req: http.IncomingMessage, res: http.ServerResponse, extra?: ExtraMetrics): void {
  void Promise.all([renderMetrics(), extra?.().catch(() => '') ?? '']).then(
    ([{ text, contentType }, more]) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : more ? `${text}\n${more}` : text);
    },
    (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics: ${err.message}\n`),
  );
}

/** A listener of its own for /metrics (--metrics-port): Prometheus reaches it without reaching the MCP endpoint. */
export async function listenMetrics(host: string, port: number, extra?: ExtraMetrics): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (pathname === METRICS_PATH && (req.method === 'GET' || req.method === 'HEAD')) return serveMetrics(req, res, extra);
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: metrics are at ${METRICS_PATH}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostForUrl}:${bound}${METRICS_PATH}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The label of a request's JSON-RPC method: the method, `batch`, `response` (a POSTed answer), or the HTTP method. */
export function methodOf(json: unknown, httpMethod: string): string {
  if (Array.isArray(json)) return 'batch';
  const message = json as { method?: unknown } | null | undefined;
  if (message && typeof message === 'object') return typeof message.method === 'string' ? message.method : 'response';
  return httpMethod;
}

/**
 * Records a request once its answer is known and hands the answer on: an HTTP error status is
 * `refused`, a JSON reply that carries a JSON-RPC error is `error`, anything else (a stream
 * included) `ok`. A JSON reply is read once here and sent from that text (a copy of its body
 * would cost each read a stream tee). Latency is to the response's headers.
 */
export async function recordRequest(method: string, response: Response, startedAt: number): Promise<Response> {
  if (!metricsEnabled()) return response;
  const seconds = (performance.now() - startedAt) / 1000;
  if (response.status >= 400) return recorded(method, 'refused', seconds, response);
  if (!response.headers.get('content-type')?.includes('application/json')) return recorded(method, 'ok', seconds, response);
  const text = await response.text();
  metrics.request(method, carriesError(text) ? 'error' : 'ok', seconds);
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function recorded(method: string, outcome: 'ok' | 'error' | 'refused', seconds: number, response: Response): Response {
  metrics.request(method, outcome, seconds);
  return response;
}

/** Whether a JSON-RPC reply (or any reply of a batch) is an error. */
export function carriesError(text: string): boolean {
  if (!text.includes('"error"')) return false; // most replies: no parse
  try {
    const json = JSON.parse(text) as unknown;
    const replies = Array.isArray(json) ? json : [json];
    return replies.some((r) => r !== null && typeof r === 'object' && 'error' in r);
  } catch {
    return false;
  }
}
