import { McpServer, type McpRequestContext, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { McpContext } from './context';
import type { ToolDefinition } from '../tool-definition';
import type { ProtocolRevision } from './revision';
import { revisionOf } from './revisions';
import type { TaskHandles } from './task-handles/task-handles';
import { installToolsListView } from './task-handles/tools-list-view';
import { handleToolsCall } from './core/tools-call';
import type { TaskCard } from './task-card';
import { inRequestSpan, traceRequestHandlers } from './tracing';

export const SERVER_NAME = 'mcp-temporal-tasks';

/** Idle servers kept per kind; past it a released one is dropped. */
const POOL_LIMIT = 64;

/**
 * The SDK asks for a server per HTTP request. Building one (with every tool registered) is
 * most of the per-request CPU, so finished servers go back to a pool and serve the next
 * request of the same kind. They hold no request state: the caller comes from each
 * handler's context, and all task state is in Temporal.
 */
export function createServerFactory(mcp: McpContext, handles: TaskHandles, card?: TaskCard) {
  const pools = new Map<string, McpServer[]>();
  const factory = (ctx: McpRequestContext): McpServer => {
    const revision = revisionOf(ctx.era);
    // Where the SDK has checked a method header against the body, a server serves one method; stdio has no headers.
    const servesToolsCall = !revision.methodHeader || !ctx.requestInfo || ctx.requestInfo.headers.get('mcp-method') === 'tools/call';
    const kind = `${revision.name}:${servesToolsCall}`;
    const pool = pools.get(kind) ?? pools.set(kind, []).get(kind)!;
    const server = pool.pop() ?? buildServer(mcp, handles, revision, servesToolsCall, card);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      server.server.onclose = previous;
      if (pool.length < POOL_LIMIT) pool.push(server);
    };
    return server;
  };
  return factory;
}

function buildServer(
  mcp: McpContext,
  handles: TaskHandles,
  revision: ProtocolRevision,
  servesToolsCall: boolean,
  card?: TaskCard,
): McpServer {
  const server = new McpServer(mcp.serverInfo, { capabilities: { tools: { listChanged: false }, ...revision.capabilities(mcp.listing) } });
  const taskTools = new Set(handles.taskTools());
  const listed = [...mcp.registry.list(), ...taskTools].map((tool) => {
    // registerTool gives tools/list its JSON Schema; tools/call is served below instead.
    const registered = server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        scopeChallenge: mcp.toolScopes.challenge(tool),
        // hosts that render MCP Apps show the task card beside results that can be a task (others ignore _meta)
        _meta: card && showsCard(tool, handles) ? card.toolMeta() : undefined,
      },
      () => {
        throw new Error('unreachable: tools/call is served by the fallback handler');
      },
    );
    if (revision.toolExecution) registered.execution = revision.toolExecution(tool.taskMode);
    return { tool, registered, taskTool: taskTools.has(tool) };
  });
  installToolsListView(server, listed, handles, revision, mcp.toolScopes);
  server.server.removeRequestHandler('tools/call');
  // The fallback serves tools/call (so -32021 and task results pass unaltered). Servers for
  // other methods have none, so unknown methods still get the SDK's own 404 / -32601.
  if (servesToolsCall) {
    server.server.fallbackRequestHandler = async (request, ctx) => {
      if (request.method !== 'tools/call') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
      const tool = knownTool(request.params?.name, mcp, handles);
      const attributes = { 'mcp.method.name': 'tools/call', ...(tool ? { 'gen_ai.tool.name': tool } : {}) };
      const call = () => handleToolsCall(request.params, ctx, { revision, transport: server.server.transport }, mcp, handles);
      return (await inRequestSpan(ctx, tool ? `tools/call ${tool}` : 'tools/call', attributes, call)) as never;
    };
  }
  card?.register(server);
  traceRequestHandlers(server.server);
  revision.registerMethods(server, mcp);
  return server;
}

/** A tool whose result can be a task handle, and the task tools that follow one (not the list). */
function showsCard(tool: ToolDefinition, handles: TaskHandles): boolean {
  const n = handles.names;
  return [n.wait, n.respond, n.cancel].includes(tool.name) || handles.servesHandle(tool);
}

/** A span names only tools that exist: a caller's made-up names do not become span names. */
function knownTool(name: unknown, mcp: McpContext, handles: TaskHandles): string | undefined {
  if (typeof name !== 'string') return undefined;
  return mcp.registry.get(name) || handles.taskTool(name) ? name : undefined;
}
