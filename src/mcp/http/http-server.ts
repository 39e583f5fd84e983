import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  type OAuthTokenVerifier,
  originValidationResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MAX_JSON_DEPTH, DepthScanner, malformedRequestResponse, parseBody, type RequestBody, tooDeepResponse } from './body';

export interface EndpointOptions {
  /** Host names accepted besides localhost, 127.0.0.1 and [::1] (DNS rebinding protection). */
  allowedHosts: string[];
  /** Origin hostnames accepted besides localhost, 127.0.0.1 and [::1] (any scheme and port). */
  allowedOrigins: string[];
  strictHeaders: boolean;
  /** When set, every request needs `Authorization: Bearer <token>`; its principal owns the tasks it creates. */
  tokenVerifier?: OAuthTokenVerifier;
  /** Instead of `tokenVerifier`: the OAuth resource server (src/mcp/http/oauth-resource-server.ts), its gate and its metadata. */
  auth?: {
    gate(request: Request): Promise<AuthInfo | Response>;
    serveMetadata(request: Request): Response | undefined;
  };
  /**
   * Served in front of the SDK, in order, after Host/Origin and auth: what the SDK would not serve
   * (POSTed answers to 2025 input requests, task subscriptions). Each resolves undefined when
   * the request is not one of its own.
   */
  inFront?: Array<(request: Request, authInfo: AuthInfo | undefined, body: RequestBody | undefined) => Promise<Response | undefined>>;
  /** Deepest JSON nesting accepted in a body; deeper is refused before parsing (-32602). */
  maxJsonDepth?: number;
}

export interface McpEndpoint {
  /** A fetch-style handler: Host/Origin checks, bearer auth and routing headers in front of the SDK's. */
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const MCP_PATH = '/mcp';
/** Liveness: 200 while the process serves, whatever Temporal does (a restart would not help). */
export const HEALTH_PATH = '/healthz';
/** Readiness: 200 only when the process can do its work now (Temporal answers; a worker polls). */
export const READY_PATH = '/readyz';

/** A readiness answer: `ok`, else a `reason`; the rest is shown as it is. */
export interface Readiness {
  ok: boolean;
  reason?: string;
  [detail: string]: unknown;
}

/** The Streamable HTTP endpoint, for any fetch-style framework. */
export function createMcpEndpoint(factory: McpServerFactory, opts: EndpointOptions): McpEndpoint {
  const mcp = createMcpHandler(factory, { legacy: 'stateless' });
  const hosts = [...localhostAllowedHostnames(), ...opts.allowedHosts];
  const origins = [...localhostAllowedOrigins(), ...opts.allowedOrigins];
  const gate = opts.auth ? (r: Request) => opts.auth!.gate(r) : opts.tokenVerifier ? requireBearerAuth({ verifier: opts.tokenVerifier }) : undefined;
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const fetch = async (request: Request) => {
    const rejected = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
    if (rejected) return rejected;
    const metadata = opts.auth?.serveMetadata(request); // RFC 9728: public, before the gate
    if (metadata) return metadata;
    if (new URL(request.url).pathname.startsWith('/.well-known/')) return new Response('Not found\n', { status: 404 });
    const auth = gate ? await gate(request) : undefined;
    if (auth instanceof Response) return auth;
    // the body is read and parsed once (after auth), for the handlers in front and for the SDK
    let body: RequestBody | undefined;
    if (request.method === 'POST') {
      const read = parseBody(await request.text(), maxDepth);
      if ('tooDeep' in read) return tooDeepResponse(maxDepth);
      body = read;
      const malformed = malformedRequestResponse(body);
      if (malformed) return malformed;
    }
    for (const serve of opts.inFront ?? []) {
      const answered = await serve(request, auth, body);
      if (answered) return answered;
    }
    const forward = body ? forwardedRequest(request, body, !opts.strictHeaders) : request;
    return mcp.fetch(forward, { ...(auth ? { authInfo: auth } : {}), ...(body?.json !== undefined ? { parsedBody: body.json } : {}) });
  };
  return { fetch, close: () => mcp.close() };
}

/**
 * Serves an endpoint on Node's http at /mcp, with a body limit and a deep accept queue, and
 * GET /healthz (liveness) and /readyz (`ready()`: 200, or 503 with the reason).
 */
export async function listenHttp(
  endpoint: McpEndpoint,
  opts: { host: string; port: number; maxBodyBytes: number; maxJsonDepth?: number; ready: () => Promise<Readiness> },
): Promise<RunningHttpServer> {
  const node = toNodeHandler(endpoint, { maxRequestBodySize: opts.maxBodyBytes });
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    // a declared length over the limit goes straight to the SDK's adapter, which answers 413 unread
    if (pathname === MCP_PATH && req.method === 'POST' && !(Number(req.headers['content-length']) > opts.maxBodyBytes)) {
      // a body nested too deep is refused while it arrives: a few bytes of `[[[` are enough (this
      // runs before Host/Origin and auth, which read no body: refusing early reveals nothing)
      void readScanned(req, maxDepth, opts.maxBodyBytes).then((read) => {
        if (read.kind === 'read') return node(replayed(req, read.chunks), res);
        void sendResponse(res, read.kind === 'deep' ? tooDeepResponse(maxDepth) : tooLargeResponse(opts.maxBodyBytes), true);
      }, () => res.destroy());
      return;
    }
    if (pathname === MCP_PATH || pathname.startsWith('/.well-known/oauth-protected-resource')) return void node(req, res);
    if ((pathname === HEALTH_PATH || pathname === READY_PATH) && (req.method === 'GET' || req.method === 'HEAD')) {
      const answer = pathname === HEALTH_PATH ? Promise.resolve<Readiness>({ ok: true }) : opts.ready().catch((err: Error) => ({ ok: false, reason: err.message }));
      void answer.then((report) => {
        res.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify(report));
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // a deep accept queue: bursts of new connections wait instead of being dropped and retried
    server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The body's chunks, scanned for nesting as they arrive. A body found too deep is read to its
 * end without scanning or keeping it (a client still sending would otherwise get a broken pipe
 * instead of the answer); past the size limit nothing more is read.
 */
function readScanned(req: http.IncomingMessage, maxDepth: number, maxBytes: number): Promise<{ kind: 'read'; chunks: Buffer[] } | { kind: 'deep' | 'large' }> {
  return new Promise((resolve, reject) => {
    const scanner = new DepthScanner(maxDepth);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let deep = false;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        req.off('data', onData);
        req.pause();
        return resolve({ kind: 'large' });
      }
      if (deep) return;
      deep = scanner.feed(chunk);
      if (deep) chunks.length = 0;
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(deep ? { kind: 'deep' } : { kind: 'read', chunks }));
    req.once('error', reject);
  });
}

/** As the SDK's adapter answers a body over the limit. */
function tooLargeResponse(maxBytes: number): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${maxBytes} bytes` }, id: null }, { status: 413 });
}

/** The request again, its body served from the chunks already read (the SDK's adapter reads it as a stream). */
function replayed(req: http.IncomingMessage, chunks: Buffer[]): http.IncomingMessage {
  return Object.assign(Object.create(req) as http.IncomingMessage, {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
  });
}

/** Writes a fetch Response to Node's response; `close`: end the connection (its request was left unread). */
async function sendResponse(res: http.ServerResponse, response: Response, close: boolean): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(response.headers);
  if (close) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** The body field each method's Mcp-Name mirrors (the SDK's table, SEP-2243 + SEP-2663). */
const MCP_NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header-safe Mcp-Name: plain printable ASCII as is, anything else as the SDK's `=?base64?…?=` sentinel. */
export function mcpNameHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The request for the SDK, with the same signal (a client that leaves must still abort held
 * calls). The SDK reads no body when it is given the parsed one, so a request is built again
 * only to carry a body that did not parse (the SDK answers it) or filled-in headers. By default
 * (not --strict-headers) a missing Mcp-Method / Mcp-Name is filled in from the body, for
 * clients that omit them (FastMCP 4.1 + fastmcp-tasks sends no Mcp-Name on tasks/*). A header
 * that is present is never touched, so a mismatched one is still refused by the SDK (400 / -32020).
 */
function forwardedRequest(request: Request, body: RequestBody, fillRoutingHeaders: boolean): Request {
  const missing = fillRoutingHeaders ? missingRoutingHeaders(request.headers, body.json) : [];
  if (body.json !== undefined && missing.length === 0) return request;
  const headers = new Headers(request.headers);
  for (const [name, value] of missing) headers.set(name, value);
  return new Request(request.url, { method: 'POST', headers, body: body.json === undefined ? body.text : undefined, signal: request.signal });
}

function missingRoutingHeaders(present: Headers, json: unknown): Array<[string, string]> {
  const message = json as { method?: unknown; params?: Record<string, unknown> } | undefined;
  if (message === null || typeof message !== 'object' || typeof message.method !== 'string') return [];
  const missing: Array<[string, string]> = [];
  if (!present.has('mcp-method') && /^[\x21-\x7e]+$/.test(message.method)) missing.push(['mcp-method', message.method]);
  const field = Object.hasOwn(MCP_NAME_SOURCE, message.method) ? MCP_NAME_SOURCE[message.method] : undefined;
  const name = field && message.params !== null && typeof message.params === 'object' ? message.params[field] : undefined;
  if (typeof name === 'string' && !present.has('mcp-name')) missing.push(['mcp-name', mcpNameHeaderValue(name)]);
  return missing;
}
