'use strict';
/**
 * A minimal raw MCP client for the benchmark: one JSON-RPC POST per request with the
 * 2026-07-28 envelope and routing headers (as test/support/mcp.ts does), over Node's global
 * fetch (undici's default agent keeps connections alive).
 */
const PROTOCOL = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL,
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-temporal-tasks-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

class RpcError extends Error {
  constructor(method, error) {
    super(`${method}: ${error.code} ${error.message}`);
    this.code = error.code;
  }
}

function headersFor(method, params) {
  const name = params.taskId ?? params.name;
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': String(name) } : {}),
  };
}

/** A JSON body, or the last `data:` frame of an SSE body. */
function parseBody(text) {
  if (!text) return undefined;
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
  const frames = text.split('\n').filter((l) => l.startsWith('data:'));
  return frames.length ? JSON.parse(frames[frames.length - 1].slice(5)) : undefined;
}

/** rpc(method, params) → result; throws RpcError on a JSON-RPC error, Error on HTTP trouble. */
function mcpClient(url) {
  let nextId = 1;
  return async function rpc(method, params = {}) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } });
    const res = await fetch(url, { method: 'POST', headers: headersFor(method, params), body });
    const reply = parseBody(await res.text());
    if (reply?.error) throw new RpcError(method, reply.error);
    if (!reply || reply.result === undefined) throw new Error(`${method}: HTTP ${res.status} without a result`);
    return reply.result;
  };
}

/** The MCP operations the benchmark uses. */
function mcpTasks(url) {
  const rpc = mcpClient(url);
  return {
    rpc,
    listTools: () => rpc('tools/list'),
    createWaitAndEcho: async (seconds, text = 'x') => {
      const created = await rpc('tools/call', { name: 'wait_and_echo', arguments: { text, seconds } });
      if (created.resultType !== 'task' || !created.taskId) throw new Error(`not a CreateTaskResult: ${JSON.stringify(created)}`);
      return created;
    },
    /** Any tool as a task: the CreateTaskResult (a synchronous answer is an error here). */
    createTask: async (name, args) => {
      const created = await rpc('tools/call', { name, arguments: args });
      if (created.resultType !== 'task' || !created.taskId) throw new Error(`not a CreateTaskResult: ${JSON.stringify(created)}`);
      return created;
    },
    getTask: (taskId) => rpc('tasks/get', { taskId }),
    updateTask: (taskId, inputResponses) => rpc('tasks/update', { taskId, inputResponses }),
    cancelTask: (taskId) => rpc('tasks/cancel', { taskId }),
  };
}

module.exports = { mcpTasks, RpcError, PROTOCOL };
