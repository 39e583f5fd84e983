/**
 * The routing headers (Mcp-Method, Mcp-Name) of a request for the SDK: filled in from the body
 * where a client omitted them, never changed where present.
 */
import type { RequestBody } from './body';

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
export function forwardedRequest(request: Request, body: RequestBody, fillRoutingHeaders: boolean): Request {
  const missing = fillRoutingHeaders ? missingRoutingHeaders(request.headers, body.json) : [];
  if (body.json !== undefined && missing.length === 0) return request;
  const headers = new Headers(request.headers);
  for (const [name, value] of missing) headers.set(name, value);
  return new Request(request.url, {
    method: 'POST',
    headers,
    body: body.json === undefined ? body.text : undefined,
    signal: request.signal,
  });
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
