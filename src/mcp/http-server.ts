import {
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

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Host names accepted besides localhost, 127.0.0.1 and [::1] (DNS rebinding protection). */
  allowedHosts: string[];
  /** Origin hostnames accepted besides localhost, 127.0.0.1 and [::1] (any scheme and port). */
  allowedOrigins: string[];
  strictHeaders: boolean;
  maxBodyBytes: number;
  /** When set, every request needs `Authorization: Bearer <token>`; its principal owns the tasks it creates. */
  tokenVerifier?: OAuthTokenVerifier;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';

/** The Streamable HTTP endpoint: Host/Origin checks and a body limit in front of the SDK's handler. */
export async function startHttpServer(factory: McpServerFactory, opts: HttpServerOptions): Promise<RunningHttpServer> {
  const mcp = createMcpHandler(factory, { legacy: 'stateless' });
  const hosts = [...localhostAllowedHostnames(), ...opts.allowedHosts];
  const origins = [...localhostAllowedOrigins(), ...opts.allowedOrigins];
  const gate = opts.tokenVerifier ? requireBearerAuth({ verifier: opts.tokenVerifier }) : undefined;
  const fetch = async (request: Request, options?: Parameters<typeof mcp.fetch>[1]) => {
    const rejected = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
    if (rejected) return rejected;
    const auth = gate ? await gate(request) : undefined;
    if (auth instanceof Response) return auth;
    return mcp.fetch(opts.strictHeaders ? request : await withRoutingHeaders(request), { ...options, ...(auth ? { authInfo: auth } : {}) });
  };
  const node = toNodeHandler({ fetch }, { maxRequestBodySize: opts.maxBodyBytes });
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    void node(req, res);
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
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Lenient mode for clients that predate SEP-2243: fill in a missing Mcp-Method / Mcp-Name
 * from the body. A present but mismatched header is still rejected by the SDK.
 */
async function withRoutingHeaders(request: Request): Promise<Request> {
  if (request.method !== 'POST') return request;
  const text = await request.text();
  const headers = new Headers(request.headers);
  try {
    const body = JSON.parse(text) as { method?: unknown; params?: Record<string, unknown> };
    if (typeof body.method === 'string' && !headers.has('mcp-method')) headers.set('mcp-method', body.method);
    const name = body.params?.taskId ?? body.params?.name ?? body.params?.uri;
    if (typeof name === 'string' && !headers.has('mcp-name')) headers.set('mcp-name', name);
  } catch {
    // not JSON: the SDK answers the parse error
  }
  return new Request(request.url, { method: 'POST', headers, body: text });
}
