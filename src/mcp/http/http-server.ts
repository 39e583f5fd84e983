import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  type OAuthTokenVerifier,
  originValidationResponse,
  type ProtocolEra,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { capConnections, DEFAULT_REQUEST_TIMEOUT_MS, defaultMaxConnections, drainBody } from './connections';
import {
  DEFAULT_MAX_JSON_DEPTH,
  malformedRequestResponse,
  parseBody,
  readScanned,
  replayed,
  type RequestBody,
  tooDeepResponse,
  tooLargeResponse,
} from './body';
import { type ExtraMetrics, METRICS_PATH, methodOf, recordRequest, serveMetrics } from './metrics-http';
import { forwardedRequest } from './routing-headers';

/** A handler in front of the SDK's: a Response, or undefined to let the SDK serve the request. */
export type FrontHandler = (request: Request, authInfo: AuthInfo | undefined, body?: RequestBody) => Promise<Response | undefined>;

export interface EndpointOptions {
  /** Host names accepted besides localhost, 127.0.0.1 and [::1] (DNS rebinding protection). */
  allowedHosts: string[];
  /** Origin hostnames accepted besides localhost, 127.0.0.1 and [::1] (any scheme and port). */
  allowedOrigins: string[];
  strictHeaders: boolean;
  /** When set, every request needs `Authorization: Bearer <token>`; its principal owns the tasks it creates. */
  tokenVerifier?: OAuthTokenVerifier;
  /** Instead of `tokenVerifier`: the OAuth resource server (src/mcp/auth/oauth-resource-server.ts), its gate and its metadata. */
  auth?: {
    gate(request: Request): Promise<AuthInfo | Response>;
    serveMetadata(request: Request): Response | undefined;
  };
  /**
   * Served in front of the SDK, after Host/Origin and auth, by the revision a request speaks
   * (the SDK's routing): what the SDK would not serve (POSTed answers to 2025 input requests,
   * task subscriptions). Each resolves undefined when the request is not one of its own.
   */
  inFront?: Partial<Record<ProtocolEra, FrontHandler>>;
  /** Deepest JSON nesting accepted in a body; deeper is refused before parsing (-32602). */
  maxJsonDepth?: number;
}

export interface McpEndpoint {
  /**
   * A fetch-style handler: Host/Origin checks, bearer auth and routing headers in front of the
   * SDK's. `authInfo` is taken as the caller only when `admit` produced it (the gate is then not
   * run twice); any other is ignored and the gate runs.
   */
  fetch(request: Request, context?: { authInfo?: AuthInfo }): Promise<Response>;
  /**
   * Host/Origin and the bearer gate, from the request's headers alone (its body is not read): the
   * verified caller (undefined without authentication), or the answer to send instead.
   */
  admit(request: Request): Promise<AuthInfo | Response | undefined>;
  close(): Promise<void>;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** Where GET /metrics is served, when on a port of its own. */
  metricsUrl?: string;
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
  const gate = opts.auth
    ? (r: Request) => opts.auth!.gate(r)
    : opts.tokenVerifier
      ? requireBearerAuth({ verifier: opts.tokenVerifier })
      : undefined;
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const hostOrOriginRefused = (request: Request) =>
    hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
  // the callers admit() verified: fetch() takes them without running the gate again
  const admitted = new WeakSet<AuthInfo>();
  const admit = async (request: Request) => {
    const refused = hostOrOriginRefused(request);
    if (refused) return refused;
    const auth = gate ? await gate(request) : undefined;
    if (auth && !(auth instanceof Response)) admitted.add(auth);
    return auth;
  };
  const fetch = async (request: Request, context?: { authInfo?: AuthInfo }) => {
    const startedAt = performance.now();
    const seen = { method: request.method };
    const response = await serve(request, context, seen); // sets seen.method: read it after
    return recordRequest(seen.method, response, startedAt);
  };
  const serve = async (request: Request, context: { authInfo?: AuthInfo } | undefined, seen: { method: string }) => {
    const refused = hostOrOriginRefused(request);
    if (refused) return refused;
    const metadata = opts.auth?.serveMetadata(request); // RFC 9728: public, before the gate
    if (metadata) return metadata;
    if (new URL(request.url).pathname.startsWith('/.well-known/')) return new Response('Not found\n', { status: 404 });
    const given = context?.authInfo;
    const auth = given && admitted.has(given) ? given : gate ? await gate(request) : undefined;
    if (auth instanceof Response) return auth;
    // the body is read and parsed once (after auth), for the handlers in front and for the SDK
    let body: RequestBody | undefined;
    if (request.method === 'POST') {
      const read = parseBody(await request.text(), maxDepth);
      if ('tooDeep' in read) return tooDeepResponse(maxDepth);
      body = read;
      seen.method = methodOf(body.json, request.method);
      const malformed = malformedRequestResponse(body);
      if (malformed) return malformed;
    }
    const front = opts.inFront?.[await revisionOfRequest(request, body)];
    const answered = front && (await front(request, auth, body));
    if (answered) return answered;
    const forward = body ? forwardedRequest(request, body, !opts.strictHeaders) : request;
    return mcp.fetch(forward, { ...(auth ? { authInfo: auth } : {}), ...(body?.json !== undefined ? { parsedBody: body.json } : {}) });
  };
  return { fetch, admit, close: () => mcp.close() };
}

/** The revision a request speaks, as the SDK routes it (a body that is not JSON: 2025, where the SDK answers it). */
async function revisionOfRequest(request: Request, body: RequestBody | undefined): Promise<ProtocolEra> {
  if (body && body.json === undefined) return 'legacy';
  return (await isLegacyRequest(request, body?.json)) ? 'legacy' : 'modern';
}

/** What bounds the HTTP listener; see ServerConfig for each. */
export interface ListenOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  maxJsonDepth?: number;
  /** Open connections at most (see capConnections); default: defaultMaxConnections(). */
  maxConnections?: number;
  /** Time a request's headers and body have to arrive, in ms; past it: 408 and the connection closes. */
  requestTimeoutMs?: number;
  ready: () => Promise<Readiness>;
  /** GET /metrics is served here (off when metrics are off or have a port of their own); `extra` is added to the text. */
  metrics?: { extra?: ExtraMetrics };
}

/**
 * Serves an endpoint on Node's http at /mcp, with a body limit and a deep accept queue, and
 * GET /healthz (liveness), /metrics (when asked) and /readyz (`ready()`: 200, or 503 with the reason). A request to
 * /mcp is admitted (Host/Origin, credentials) from its headers before any of its body is read;
 * connections are capped and a request must arrive within a deadline.
 */
export async function listenHttp(endpoint: McpEndpoint, opts: ListenOptions): Promise<RunningHttpServer> {
  const node = toNodeHandler(endpoint, { maxRequestBodySize: opts.maxBodyBytes });
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Node checks the deadlines every connectionsCheckingInterval (30 s by default): at most 1 s late here
  const timeouts = { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) };
  const serveMcp = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const startedAt = performance.now();
    const admission = await admitFromHeaders(endpoint, req);
    // refused: answered at once; a body still on its way is only drained (bounded), and the connection closes
    if (admission instanceof Response) {
      const answer = await recordRequest(String(req.headers['mcp-method'] ?? req.method), admission, startedAt);
      return sendResponse(res, answer, req);
    }
    // the SDK's adapter hands req.auth to fetch(), which takes it as admitted
    if (admission) Object.assign(req, { auth: admission });
    if (req.method !== 'POST') return node(req, res);
    if (Number(req.headers['content-length']) > opts.maxBodyBytes) return sendResponse(res, tooLargeResponse(opts.maxBodyBytes), req);
    // a body nested too deep is refused while it arrives: a few bytes of `[[[` are enough
    const read = await readScanned(req, maxDepth, opts.maxBodyBytes);
    if (read.kind === 'read') return node(replayed(req, read.chunks), res);
    return sendResponse(res, read.kind === 'deep' ? tooDeepResponse(maxDepth) : tooLargeResponse(opts.maxBodyBytes), req);
  };
  const server = http.createServer(timeouts, (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (pathname === MCP_PATH) return void serveMcp(req, res).catch(() => res.destroy());
    // public metadata: answered from the headers too, so no anonymous body is ever read
    if (pathname.startsWith('/.well-known/oauth-protected-resource'))
      return void serveFromHeaders(endpoint, req, res).catch(() => res.destroy());
    if (pathname === METRICS_PATH && opts.metrics && (req.method === 'GET' || req.method === 'HEAD'))
      return serveMetrics(req, res, opts.metrics.extra);
    if ((pathname === HEALTH_PATH || pathname === READY_PATH) && (req.method === 'GET' || req.method === 'HEAD')) {
      const answer =
        pathname === HEALTH_PATH
          ? Promise.resolve<Readiness>({ ok: true })
          : opts.ready().catch((err: Error) => ({ ok: false, reason: err.message }));
      void answer.then((report) => {
        res.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify(report));
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
  });
  capConnections(server, opts.maxConnections ?? defaultMaxConnections());
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

/** Admission from the request's headers alone. */
async function admitFromHeaders(endpoint: McpEndpoint, req: http.IncomingMessage): Promise<AuthInfo | Response | undefined> {
  const request = headersOnlyOr400(req);
  return request instanceof Response ? request : endpoint.admit(request);
}

/** A request the endpoint answers from its headers (the metadata); a body on its way is only drained. */
async function serveFromHeaders(endpoint: McpEndpoint, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const request = headersOnlyOr400(req);
  await sendResponse(res, request instanceof Response ? request : await endpoint.fetch(request), req);
}

/** The request without its body, or a 400 when it makes no fetch Request (a Host that is no host, a forbidden method). */
function headersOnlyOr400(req: http.IncomingMessage): Request | Response {
  try {
    return headersOnly(req);
  } catch (err) {
    const reason = `Bad Request: ${(err as Error).message}`;
    return Response.json({ jsonrpc: '2.0', error: { code: -32600, message: reason }, id: null }, { status: 400 });
  }
}

/** The request as the SDK's adapter builds it (same URL and headers), without its body. */
function headersOnly(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers });
}

/**
 * Writes a fetch Response to Node's response for `req`. A request whose body was not read to its
 * end has its connection closed, once the rest is drained (bounded): a client still sending then
 * reads the answer first.
 */
async function sendResponse(res: http.ServerResponse, response: Response, req: http.IncomingMessage): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(response.headers);
  const body = Buffer.from(await response.arrayBuffer());
  if (req.complete) return void res.writeHead(response.status, headers).end(body);
  res.writeHead(response.status, { ...headers, connection: 'close', 'content-length': String(body.length) });
  res.write(body);
  await drainBody(req);
  res.end();
}
