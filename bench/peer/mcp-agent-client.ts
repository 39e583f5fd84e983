/**
 * A raw-wire client for the mcp-agent peer with the interface of the support library's mcpTasks
 * (test/support/mcp-client.ts), so the
 * scenarios of bench/peer/run.ts run unchanged: mcp-agent 0.2.6 serves MCP 2025-11-25 over
 * stateful streamable HTTP (one session, initialised once) and exposes its workflows through
 * ordinary tools: `workflows-run` starts one (the "create"), `workflows-get_status` reads it (a
 * Temporal describe(): the "tasks/get"), `workflows-resume` signals it, `workflows-cancel`
 * cancels it. Every task handle is the pair the server hands back (workflow_id, run_id), as an
 * mcp-agent client would keep it.
 */
export const PROTOCOL = '2025-11-25';

/** A JSON body, or the last `data:` frame of an SSE body. */
function parseBody(text: string): any {
  if (!text) return undefined;
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
  const frames = text.split('\n').filter((l) => l.startsWith('data:'));
  return frames.length ? JSON.parse(frames[frames.length - 1].slice(5)) : undefined;
}

/** Temporal's execution status → the MCP task status the other stacks answer. */
const STATUS: Record<string, string> = {
  RUNNING: 'working',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELED: 'cancelled',
  TERMINATED: 'failed',
  TIMED_OUT: 'failed',
  CONTINUED_AS_NEW: 'working',
};

export function mcpAgentTasks(url: string, { workflow = 'WaitAndEcho' } = {}) {
  let nextId = 1;
  let session: string | undefined;
  let opening: Promise<string> | undefined;
  const runs = new Map<string, string>(); // taskId (workflow_id) → run_id

  async function post(body: unknown, sessionId?: string): Promise<{ res: Response; text: string }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    return { res, text: await res.text() };
  }

  async function open(): Promise<string> {
    const init = await post({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'mcp-temporal-tasks-bench', version: '1.0.0' } },
    });
    const id = init.res.headers.get('mcp-session-id');
    if (!id) throw new Error(`initialize: HTTP ${init.res.status} without a session: ${init.text.slice(0, 300)}`);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id);
    return id;
  }

  async function rpcRaw(method: string, params: Record<string, unknown> = {}): Promise<any> {
    // a failed open (the server not listening yet) is not kept: the next call opens again
    session ??= await (opening ??= open().catch((err) => {
      opening = undefined;
      throw err;
    }));
    const { res, text } = await post({ jsonrpc: '2.0', id: nextId++, method, params }, session);
    const reply = parseBody(text);
    if (reply?.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
    if (!reply || reply.result === undefined) throw new Error(`${method}: HTTP ${res.status} without a result`);
    return reply.result;
  }

  /** tools/call → the tool's JSON answer (structuredContent, or its text parsed). */
  async function callTool(name: string, args: Record<string, unknown>): Promise<any> {
    const result = await rpcRaw('tools/call', { name, arguments: args });
    const text = result.content?.find((c: { type: string }) => c.type === 'text')?.text;
    if (result.isError) throw new Error(`${name}: ${text ?? 'isError'}`);
    const structured = result.structuredContent;
    if (structured !== undefined)
      return structured.result !== undefined && Object.keys(structured).length === 1 ? structured.result : structured;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  const handleOf = (taskId: string) => ({ workflow_id: taskId, ...(runs.has(taskId) ? { run_id: runs.get(taskId) } : {}) });

  const api = {
    listTools: () => rpcRaw('tools/list'),
    async createTask(name: string, args: Record<string, unknown>) {
      // its signature has a **kwargs that FastMCP 1.x turns into a required argument
      const started = await callTool('workflows-run', { workflow_name: name, run_parameters: args, kwargs: {} });
      if (!started?.workflow_id || !started?.run_id) throw new Error(`workflows-run: no workflow_id/run_id: ${JSON.stringify(started)}`);
      runs.set(started.workflow_id, started.run_id);
      return { taskId: started.workflow_id, runId: started.run_id, status: 'working' };
    },
    // WaitAndEcho takes `seconds` only (see mcp_agent_peer.py): the text is not sent
    createWaitAndEcho: (seconds: number) => api.createTask(workflow, { seconds }),
    async getTask(taskId: string): Promise<any> {
      const status = await callTool('workflows-get_status', handleOf(taskId));
      const temporalStatus = status?.temporal?.status;
      if (!temporalStatus || temporalStatus === 'ERROR') throw new Error(`workflows-get_status: ${JSON.stringify(status).slice(0, 300)}`);
      return { taskId, status: STATUS[temporalStatus] ?? temporalStatus.toLowerCase(), temporalStatus };
    },
    updateTask: (taskId: string, payload: Record<string, unknown>) =>
      callTool('workflows-resume', { ...handleOf(taskId), signal_name: 'resume', payload }),
    cancelTask: (taskId: string) => callTool('workflows-cancel', handleOf(taskId)),
    forget: (taskId: string) => runs.delete(taskId),
    /** tasks/cancel is the only tasks/* method the scenarios send to a peer (cancelLive). */
    rpc: (method: string, params: Record<string, unknown> = {}): Promise<any> => {
      if (method === 'tasks/cancel') return api.cancelTask(params.taskId as string);
      return rpcRaw(method, params);
    },
  };
  return api;
}
