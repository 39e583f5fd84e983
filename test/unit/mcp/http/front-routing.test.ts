/** Each revision's handler in front of the SDK sees only its own requests (a 2026 request runs no 2025 code). */
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { createMcpEndpoint } from '../../../../src/mcp/http/http-server';

function endpoint() {
  const seen: string[] = [];
  const front = (name: string) => async () => (seen.push(name), new Response(name));
  const mcp = createMcpEndpoint(
    (() => {
      throw new Error('the SDK is not reached');
    }) as never,
    {
      allowedHosts: [],
      allowedOrigins: [],
      strictHeaders: false,
      inFront: { legacy: front('2025-11-25'), modern: front('2026-07-28') },
    },
  );
  return { seen, mcp };
}

const JSON_HEADERS = { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request('http://localhost/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });

test('a 2026-07-28 request goes to the 2026 front only', async () => {
  const { seen, mcp } = endpoint();
  const _meta = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: {} };
  const headers = { 'mcp-method': 'tools/list', 'mcp-protocol-version': '2026-07-28' };
  const request = post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta } }, headers);
  expect(await (await mcp.fetch(request)).text()).toBe('2026-07-28');
  expect(seen).toEqual(['2026-07-28']);
});

test('2025-11-25 requests (no envelope, a POSTed response, a body that is not JSON) go to the 2025 front only', async () => {
  const { seen, mcp } = endpoint();
  await mcp.fetch(post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  await mcp.fetch(post({ jsonrpc: '2.0', id: 'mcp-task-input:x:y', result: {} }));
  await mcp.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: JSON_HEADERS, body: '{not json' }));
  expect(seen).toEqual(['2025-11-25', '2025-11-25', '2025-11-25']);
});
