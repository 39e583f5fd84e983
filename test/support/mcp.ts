import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { spawnCli, CliProcess } from './processes';

export const PROTOCOL = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
export const DECLARING = { extensions: { [TASKS]: {} } };

export interface RpcReply {
  status: number;
  body: any;
}

let nextId = 1;

/** One raw JSON-RPC POST with the 2026-07-28 envelope and routing headers (overridable). */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: { capabilities?: Record<string, unknown>; headers?: Record<string, string | undefined>; rawBody?: string; signal?: AbortSignal } = {},
): Promise<RpcReply> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL,
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': opts.capabilities ?? DECLARING,
  };
  const name = (params.taskId ?? params.name) as string | undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': String(name) } : {}),
  };
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  const body = opts.rawBody ?? JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } });
  const res = await fetch(url, { method: 'POST', headers, body, signal: opts.signal });
  const text = await res.text();
  return { status: res.status, body: parseBody(text) };
}

function parseBody(text: string): any {
  if (!text) return undefined;
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
  // an SSE answer: the last data frame is the response
  const frames = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
  return frames[frames.length - 1];
}

/** The result of a successful call, or throws with the JSON-RPC error. */
export async function call(url: string, method: string, params: Record<string, unknown> = {}, opts = {}): Promise<any> {
  const { body } = await rpc(url, method, params, opts);
  if (body?.error) throw Object.assign(new Error(body.error.message), body.error);
  return body.result;
}

/** The official MCP client v2 over Streamable HTTP, on 2026-07-28 unless asked for the 2025 handshake. */
export async function connectClient(url: string, era: 'modern' | 'legacy' = 'modern', capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, ...capabilities }, versionNegotiation: { mode: era === 'modern' ? { pin: PROTOCOL } : 'legacy' } },
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

type SessionOptions = Parameters<typeof createTaskSessionFromClient>[1];

/** The official Tasks client (ext-tasks) over our own raw dispatcher, as sdk-notes describes. */
export async function taskSession(url: string, onInputRequest?: SessionOptions['onInputRequest']) {
  const client = await connectClient(url);
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: async (request: any, options?: { context?: { headers?: Record<string, string> } }) => {
      // ext-tasks passes Mcp-Name for tasks/*; the dispatcher adds the rest (sdk-notes)
      const headers = new Headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': request.method,
      });
      if (request.method === 'tools/call') headers.set('mcp-name', request.params?.name);
      for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers.set(k, v);
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...request }),
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

/** `serve` on a free port against the given Temporal; resolves with its URL. */
export async function startServe(address: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ proc: CliProcess; url: string }> {
  const proc = spawnCli(['serve', '--port', '0', ...args], { TEMPORAL_ADDRESS: address, ...env });
  const [, url] = await proc.waitFor(/MCP endpoint: (\S+)/);
  return { proc, url };
}

export async function startWorker(address: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<CliProcess> {
  const proc = spawnCli(['worker', ...args], { TEMPORAL_ADDRESS: address, ...env });
  await proc.waitFor(/worker polling task queue/);
  return proc;
}

/** Polls tasks/get until the task is terminal (or the predicate holds). */
export async function pollTask(url: string, taskId: string, until: (t: any) => boolean = isTerminal, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // -32603 means the store is unreachable for now (e.g. Temporal restarting): keep polling
    const task = await call(url, 'tasks/get', { taskId }).catch((err) => {
      if (err.code === -32603 && Date.now() < deadline) return undefined;
      throw err;
    });
    if (task && until(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const isTerminal = (t: any) => ['completed', 'failed', 'cancelled'].includes(t.status);

/** An open `subscriptions/listen` stream read frame by frame (or the JSON error it was refused with). */
export interface TaskSubscription {
  status: number;
  error?: { code: number; message: string; data?: unknown };
  /** The next JSON-RPC message on the stream; undefined once it ended. Throws after timeoutMs. */
  next(timeoutMs?: number): Promise<any>;
  /** Every message until the stream ends. */
  rest(timeoutMs?: number): Promise<any[]>;
  /** Leaves, like a client that goes away. */
  close(): void;
}

export async function subscribe(
  url: string,
  taskIds: unknown,
  opts: { headers?: Record<string, string>; capabilities?: Record<string, unknown>; notifications?: Record<string, unknown>; signal?: AbortSignal } = {},
): Promise<TaskSubscription> {
  const abort = new AbortController();
  opts.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  const body = {
    jsonrpc: '2.0',
    id: `listen-${nextId++}`,
    method: 'subscriptions/listen',
    params: {
      notifications: opts.notifications ?? { taskIds },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': opts.capabilities ?? DECLARING,
      },
    },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL, 'mcp-method': 'subscriptions/listen', ...opts.headers },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  const close = () => abort.abort();
  if (!res.headers.get('content-type')?.includes('text/event-stream')) {
    const json = JSON.parse(await res.text());
    return { status: res.status, error: json.error, next: async () => undefined, rest: async () => [], close };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: any[] = [];
  let ended = false;
  const fill = async () => {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) return void (ended = true);
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('\n');
      if (data) queue.push(JSON.parse(data));
    }
  };
  const next = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message on the subscription after ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([fill(), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return queue.shift();
  };
  const rest = async (timeoutMs = 60_000) => {
    const out: any[] = [];
    for (let m = await next(timeoutMs); m !== undefined; m = await next(timeoutMs)) out.push(m);
    return out;
  };
  return { status: res.status, next, rest, close };
}
