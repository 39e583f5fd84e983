/**
 * The tests' MCP clients: the raw client of ./mcp-client (shared with benches and scripts,
 * re-exported here) and the official SDK clients (MCP client v2, the ext-tasks session), which
 * only tests load (ext-tasks is ESM only; jest maps it).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { DECLARING, parseBody, PROTOCOL } from './mcp-client';

export * from './mcp-client';
export { startServe, startWorker } from './servers';

/** The official MCP client v2 over Streamable HTTP, on 2026-07-28 unless asked for the 2025 handshake. */
export async function connectClient(
  url: string,
  revision: '2026-07-28' | '2025-11-25' = '2026-07-28',
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, ...capabilities },
      versionNegotiation: { mode: revision === '2026-07-28' ? { pin: PROTOCOL } : 'legacy' },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: inRealmFetch }));
  return client;
}

/**
 * Jest runs tests in a vm realm, but fetch's Response.json() builds objects of the outer realm,
 * which ext-tasks' plain-object checks reject. Parse JSON in this realm instead.
 */
export const inRealmFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  return new Proxy(res, {
    get(target, prop) {
      if (prop === 'json') return async () => JSON.parse(await target.text());
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

let nextDispatchId = 1;

type SessionOptions = Parameters<typeof createTaskSessionFromClient>[1];

/** The official Tasks client (ext-tasks) over our own raw dispatcher, as sdk-notes describes. */
export async function taskSession(url: string, onInputRequest?: SessionOptions['onInputRequest']) {
  return taskSessionOf(await connectClient(url), url, { onInputRequest });
}

/** The same on a client already connected (e.g. authorized); `headers` go on every request the dispatcher sends. */
export function taskSessionOf(
  client: Client,
  url: string,
  opts: { onInputRequest?: SessionOptions['onInputRequest']; headers?: Record<string, string> } = {},
) {
  const { onInputRequest, headers: extra = {} } = opts;
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: async (request: any, options?: { context?: { headers?: Record<string, string> } }) => {
      // ext-tasks passes Mcp-Name for tasks/*; the dispatcher adds the rest (sdk-notes)
      const headers = new Headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': request.method,
        ...extra,
      });
      if (request.method === 'tools/call') headers.set('mcp-name', request.params?.name);
      for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers.set(k, v);
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: nextDispatchId++, ...request }),
      });
      const body = parseBody(await res.text());
      return body.error ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result };
    },
    v2RequestFraming: {
      protocolVersion: PROTOCOL,
      clientInfo: { name: 'ext-tasks-test', version: '1.0.0' },
      clientCapabilities: { elicitation: { form: {} }, ...DECLARING },
    },
    ...(onInputRequest ? { onInputRequest } : {}),
  } as SessionOptions);
  return {
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
