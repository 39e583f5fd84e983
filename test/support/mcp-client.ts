/**
 * The one raw MCP client of tests, benches and scripts: a JSON-RPC POST per request over Node's
 * global fetch (undici keeps connections alive), for both protocol revisions this server
 * speaks. No SDK is loaded here, so plain node (benches, scripts) requires it compiled.
 *
 * - 2026-07-28 (`modern`, the default): the `_meta` envelope (protocol version, client info,
 *   client capabilities declaring the Tasks extension) and the routing headers Mcp-Method and
 *   Mcp-Name; tasks are read with tasks/get, answered with tasks/update.
 * - 2025-11-25 (`legacy`, experimental tasks): the protocol version header only, no envelope (the
 *   server is stateless: no initialize or session needed); a task is asked for with
 *   `params.task`, read with tasks/get and tasks/result.
 */
export const PROTOCOL = '2026-07-28';
export const LEGACY_PROTOCOL = '2025-11-25';
export const TASKS = 'io.modelcontextprotocol/tasks';
/** Client capabilities declaring the Tasks extension. */
export const DECLARING = { extensions: { [TASKS]: {} } };

export type Revision = '2026-07-28' | '2025-11-25';

export interface RpcOptions {
  revision?: Revision;
  /** 2026-07-28 client capabilities; default DECLARING. */
  capabilities?: Record<string, unknown>;
  /** Added to (or, undefined, removed from) the request's headers. */
  headers?: Record<string, string | undefined>;
  /** Sent as the body instead of the JSON-RPC request built from method and params. */
  rawBody?: string;
  /** The JSON-RPC id; default a counter. */
  id?: string | number;
  clientName?: string;
  signal?: AbortSignal;
  /** Added to the request's `_meta` (e.g. a W3C `traceparent`). */
  meta?: Record<string, unknown>;
}

export interface RpcReply {
  status: number;
  body: any;
}

/** A JSON-RPC error answer; message is the server's own. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(
    readonly method: string,
    error: { code: number; message: string; data?: unknown },
  ) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

let nextId = 1;

/** Headers and body of one request, as the revision wants them (shared by rpc and subscribe). */
export function buildRequest(
  method: string,
  params: Record<string, unknown> = {},
  opts: RpcOptions = {},
): { headers: Record<string, string>; body: string } {
  const revision = opts.revision ?? '2026-07-28';
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let sent: Record<string, unknown> = params;
  if (revision === '2026-07-28') {
    const name = (params.taskId ?? params.name) as string | undefined;
    Object.assign(
      headers,
      { 'mcp-protocol-version': PROTOCOL, 'mcp-method': method },
      name !== undefined ? { 'mcp-name': String(name) } : {},
    );
    sent = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientInfo': { name: opts.clientName ?? 'test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': opts.capabilities ?? DECLARING,
        ...opts.meta,
      },
    };
  } else {
    headers['mcp-protocol-version'] = LEGACY_PROTOCOL;
    if (opts.meta) sent = { ...params, _meta: opts.meta };
  }
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  const body = opts.rawBody ?? JSON.stringify({ jsonrpc: '2.0', id: opts.id ?? nextId++, method, params: sent });
  return { headers, body };
}

/** A JSON body, or the last `data:` frame of an SSE body. */
export function parseBody(text: string): any {
  if (!text) return undefined;
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
  const frames = text.split('\n').filter((l) => l.startsWith('data:'));
  return frames.length ? JSON.parse(frames[frames.length - 1].slice(5)) : undefined;
}

/** One raw JSON-RPC POST; the HTTP status and the parsed answer. */
export async function rpc(url: string, method: string, params: Record<string, unknown> = {}, opts: RpcOptions = {}): Promise<RpcReply> {
  const { headers, body } = buildRequest(method, params, opts);
  const res = await fetch(url, { method: 'POST', headers, body, signal: opts.signal });
  return { status: res.status, body: parseBody(await res.text()) };
}

/** The result of a successful call; throws RpcError with the JSON-RPC error. */
export async function call(url: string, method: string, params: Record<string, unknown> = {}, opts: RpcOptions = {}): Promise<any> {
  const { body } = await rpc(url, method, params, opts);
  if (body?.error) throw new RpcError(method, body.error);
  return body?.result;
}

/** tools/call as a task; the taskId (a synchronous answer is an error here). */
export async function createTask(url: string, name: string, args: Record<string, unknown>, opts: RpcOptions = {}): Promise<string> {
  return (await createTaskResult(url, name, args, opts)).taskId;
}

/** tools/call as a task; the CreateTaskResult (for 2025-11-25, its `task` with the taskId lifted up). */
export async function createTaskResult(url: string, name: string, args: Record<string, unknown>, opts: RpcOptions = {}): Promise<any> {
  const legacy = opts.revision === '2025-11-25';
  const created = await call(url, 'tools/call', { name, arguments: args, ...(legacy ? { task: { ttl: 60_000 } } : {}) }, opts);
  const taskId = legacy ? created?.task?.taskId : created?.resultType === 'task' ? created.taskId : undefined;
  if (!taskId) throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  return legacy ? { ...created, taskId } : created;
}

export const isTerminal = (t: any): boolean => ['completed', 'failed', 'cancelled'].includes(t.status);

/** Polls tasks/get until the predicate holds (by default: the task is terminal). */
export async function pollTask(
  url: string,
  taskId: string,
  until: (t: any) => boolean = isTerminal,
  timeoutMs = 60_000,
  opts: RpcOptions & { intervalMs?: number } = {},
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // -32603 means the store is unreachable for now (e.g. Temporal restarting): keep polling
    const task = await call(url, 'tasks/get', { taskId }, opts).catch((err) => {
      if (err.code === -32603 && Date.now() < deadline) return undefined;
      throw err;
    });
    const found = opts.revision === '2025-11-25' ? (task?.task ?? task) : task;
    if (found && until(found)) return found;
    if (Date.now() > deadline)
      throw new Error(`task ${taskId} still ${found?.status} (${found?.statusMessage ?? ''}) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/** The task operations on one server, as benches and scripts use them (2026-07-28 unless opts.revision). */
export function mcpTasks(url: string, opts: RpcOptions = {}) {
  const rpcCall = (method: string, params: Record<string, unknown> = {}) => call(url, method, params, opts);
  return {
    url,
    rpc: rpcCall,
    listTools: () => rpcCall('tools/list'),
    /** Any tool as a task: the CreateTaskResult. */
    createTask: (name: string, args: Record<string, unknown>) => createTaskResult(url, name, args, opts),
    createWaitAndEcho: (seconds: number, text = 'x') => createTaskResult(url, 'wait_and_echo', { text, seconds }, opts),
    getTask: (taskId: string) => rpcCall('tasks/get', { taskId }),
    updateTask: (taskId: string, inputResponses: Record<string, unknown>) => rpcCall('tasks/update', { taskId, inputResponses }),
    cancelTask: (taskId: string) => rpcCall('tasks/cancel', { taskId }),
    /** 2025-11-25: the task's result, held until it ends. */
    taskResult: (taskId: string) => rpcCall('tasks/result', { taskId }),
    waitForTask: (taskId: string, until: (t: any) => boolean = isTerminal, timeoutMs = 60_000) =>
      pollTask(url, taskId, until, timeoutMs, opts),
  };
}

export type McpTasks = ReturnType<typeof mcpTasks>;

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
  opts: {
    headers?: Record<string, string>;
    capabilities?: Record<string, unknown>;
    notifications?: Record<string, unknown>;
    signal?: AbortSignal;
  } = {},
): Promise<TaskSubscription> {
  const abort = new AbortController();
  opts.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  const { headers, body } = buildRequest(
    'subscriptions/listen',
    { notifications: opts.notifications ?? { taskIds } },
    { capabilities: opts.capabilities, headers: opts.headers, id: `listen-${nextId++}` },
  );
  const res = await fetch(url, { method: 'POST', headers, body, signal: abort.signal });
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
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .join('\n');
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
