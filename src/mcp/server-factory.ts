import { McpServer, type McpRequestContext, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TaskWatcher } from '../tasks/task-watcher';
import type { TemporalTaskStore } from '../tasks/temporal-task-store';
import type { ToolRegistry } from '../tools/registry';
import { type InputReasks, legacyTasksCapability, registerLegacyTasksMethods, TASK_SUPPORT } from './legacy-tasks';
import { TASKS_EXTENSION } from './negotiation';
import { registerTasksMethods } from './tasks-methods';
import { handleToolsCall } from './tools-call';
import { installToolsListView } from './task-tools-listing';
import type { TaskTools } from './task-tools';
import type { WatchLimits } from './watch-limits';

export const SERVER_NAME = 'mcp-temporal-tasks';

export interface ServerDeps {
  registry: ToolRegistry;
  store: TemporalTaskStore;
  /** Follows tasks for 2025-11-25 tasks/result streams. */
  watcher: TaskWatcher;
  pollIntervalMs: number;
  version: string;
  /** 2025-11-25 tasks/list is served (and advertised) only with authentication and the McpOwner search attribute. */
  listing: boolean;
  /** Handles and companion tools for callers without Tasks. */
  taskTools: TaskTools;
  /** Shared by every stream and held call that watches a task. */
  limits: WatchLimits;
  /** 2025 questions to ask again (their answer did not fit). */
  reasks: InputReasks;
}

type Era = McpRequestContext['era'];

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
    // On 2026 requests the SDK has checked Mcp-Method against the body; stdio has no headers.
    const servesToolsCall = ctx.era === 'legacy' || !ctx.requestInfo || ctx.requestInfo.headers.get('mcp-method') === 'tools/call';
    const kind = `${ctx.era}:${servesToolsCall}`;
    const pool = pools.get(kind) ?? pools.set(kind, []).get(kind)!;
    const server = pool.pop() ?? buildServer(deps, ctx.era, servesToolsCall);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      server.server.onclose = previous;
      if (pool.length < POOL_LIMIT) pool.push(server);
    };
    return server;
  };
  return factory;
}

function buildServer(deps: ServerDeps, era: Era, servesToolsCall: boolean): McpServer {
  const modern = era === 'modern';
  const server = new McpServer(
    { name: SERVER_NAME, version: deps.version },
    { capabilities: { tools: { listChanged: false }, ...(modern ? { extensions: { [TASKS_EXTENSION]: {} } } : { tasks: legacyTasksCapability(deps.listing) }) } },
  );
  const companions = new Set(deps.taskTools.companionTools());
  const listed = [...deps.registry.list(), ...companions].map((tool) => {
    // registerTool gives tools/list its JSON Schema; tools/call is served below instead.
    const registered = server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, () => {
      throw new Error('unreachable: tools/call is served by the fallback handler');
    });
    // 2025-11-25 clients pick task mode per tool from tools/list (registerTool takes no `execution`)
    if (!modern) registered.execution = { taskSupport: TASK_SUPPORT[tool.taskMode] };
    return { tool, registered, companion: companions.has(tool) };
  });
  installToolsListView(server, listed, deps.taskTools, era);
  server.server.removeRequestHandler('tools/call');
  // The fallback serves tools/call (so -32021 and task results pass unaltered). Servers for
  // other methods have none, so unknown methods still get the SDK's own 404 / -32601.
  if (servesToolsCall) {
    server.server.fallbackRequestHandler = async (request, ctx) => {
      if (request.method !== 'tools/call') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
      return (await handleToolsCall(request.params, ctx, { ...deps, era, transport: server.server.transport })) as never;
    };
  }
  if (modern) registerTasksMethods(server, deps);
  else registerLegacyTasksMethods(server, deps);
  return server;
}
