import { McpServer, type McpRequestContext, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TaskWatcher, TemporalTaskStore } from '../tasks';
import type { TaskReader } from './polled-tasks';
import type { ToolRegistry } from './tool-registry';
import type { ProtocolRevision } from './revision';
import { revisionOf } from './revisions';
import { handleToolsCall } from './tools-call';
import { installToolsListView } from './task-handles/tools-list-view';
import type { TaskTools } from './task-handles/task-handles';
import type { ToolScopes } from './auth/tool-scopes';
import type { WatchLimits } from './watch-limits';

export const SERVER_NAME = 'mcp-temporal-tasks';

export interface ServerDeps {
  registry: ToolRegistry;
  store: TemporalTaskStore;
  /** Follows tasks for 2025-11-25 tasks/result streams. */
  watcher: TaskWatcher;
  /** What tasks/get reads through (polled tasks from a watch, unless turned off). */
  reader: TaskReader;
  pollIntervalMs: number;
  version: string;
  /** 2025-11-25 tasks/list is served (and advertised) only with authentication and the McpOwner search attribute. */
  listing: boolean;
  /** Handles and companion tools for callers without Tasks. */
  taskTools: TaskTools;
  /** Per-tool OAuth scopes (listing and the 403 challenge). */
  toolScopes: ToolScopes;
  /** Shared by every stream and held call that watches a task. */
  limits: WatchLimits;
}

/** Idle servers kept per kind; past it a released one is dropped. */
const POOL_LIMIT = 64;

/**
 * The SDK asks for a server per HTTP request. Building one (with every tool registered) is
 * most of the per-request CPU, so finished servers go back to a pool and serve the next
 * request of the same kind. They hold no request state: the caller comes from each
 * handler's context, and all task state is in Temporal.
 */
export function createServerFactory(deps: ServerDeps) {
  const pools = new Map<string, McpServer[]>();
  const factory = (ctx: McpRequestContext): McpServer => {
    const revision = revisionOf(ctx.era);
    // Where the SDK has checked a method header against the body, a server serves one method; stdio has no headers.
    const servesToolsCall = !revision.methodHeader || !ctx.requestInfo || ctx.requestInfo.headers.get('mcp-method') === 'tools/call';
    const kind = `${ctx.era}:${servesToolsCall}`;
    const pool = pools.get(kind) ?? pools.set(kind, []).get(kind)!;
    const server = pool.pop() ?? buildServer(deps, revision, servesToolsCall);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      server.server.onclose = previous;
      if (pool.length < POOL_LIMIT) pool.push(server);
    };
    return server;
  };
  return factory;
}

function buildServer(deps: ServerDeps, revision: ProtocolRevision, servesToolsCall: boolean): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: deps.version }, { capabilities: { tools: { listChanged: false }, ...revision.capabilities(deps.listing) } });
  const companions = new Set(deps.taskTools.companionTools());
  const listed = [...deps.registry.list(), ...companions].map((tool) => {
    // registerTool gives tools/list its JSON Schema; tools/call is served below instead.
    const registered = server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, scopeChallenge: deps.toolScopes.challenge(tool) }, () => {
      throw new Error('unreachable: tools/call is served by the fallback handler');
    });
    if (revision.toolExecution) registered.execution = revision.toolExecution(tool.taskMode);
    return { tool, registered, companion: companions.has(tool) };
  });
  installToolsListView(server, listed, deps.taskTools, revision, deps.toolScopes);
  server.server.removeRequestHandler('tools/call');
  // The fallback serves tools/call (so -32021 and task results pass unaltered). Servers for
  // other methods have none, so unknown methods still get the SDK's own 404 / -32601.
  if (servesToolsCall) {
    server.server.fallbackRequestHandler = async (request, ctx) => {
      if (request.method !== 'tools/call') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
      return (await handleToolsCall(request.params, ctx, { ...deps, revision, transport: server.server.transport })) as never;
    };
  }
  revision.registerMethods(server, deps);
  return server;
}
