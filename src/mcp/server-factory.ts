import { McpServer, type McpRequestContext, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TemporalTaskStore } from '../tasks/temporal-task-store';
import type { ToolRegistry } from '../tools/registry';
import { TASKS_EXTENSION } from './negotiation';
import { LEGACY_TASKS_CAPABILITY, registerLegacyTasksMethods } from './legacy-tasks';
import { registerTasksMethods } from './tasks-methods';
import { handleToolsCall } from './tools-call';

export interface ServerDeps {
  registry: ToolRegistry;
  store: TemporalTaskStore;
  pollIntervalMs: number;
  version: string;
}

/** One McpServer per HTTP request (the SDK is stateless): all task state is in Temporal. */
export function createServerFactory(deps: ServerDeps) {
  return (ctx: McpRequestContext): McpServer => {
    const modern = ctx.era === 'modern';
    const server = new McpServer(
      { name: 'mcp-temporal-tasks', version: deps.version },
      { capabilities: { tools: { listChanged: false }, ...(modern ? { extensions: { [TASKS_EXTENSION]: {} } } : { tasks: LEGACY_TASKS_CAPABILITY }) } },
    );
    for (const tool of deps.registry.list()) {
      // registerTool gives tools/list its JSON Schema; tools/call is served below instead.
      server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.inputSchema }, () => {
        throw new Error('unreachable: tools/call is served by the fallback handler');
      });
    }
    server.server.removeRequestHandler('tools/call');
    // The fallback serves tools/call (so -32021 and task results pass unaltered). It is
    // installed only when the request is a tools/call, so other unknown methods still get
    // the SDK's own 404 / -32601. On 2026 requests the SDK has checked Mcp-Method against the body;
    // stdio has no headers and one instance per connection.
    if (!modern || !ctx.requestInfo || ctx.requestInfo.headers.get('mcp-method') === 'tools/call') {
      server.server.fallbackRequestHandler = async (request, reqCtx) => {
        if (request.method !== 'tools/call') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
        return (await handleToolsCall(request.params, reqCtx, { ...deps, owner: ctx.authInfo?.clientId, era: ctx.era })) as never;
      };
    }
    const principal = ctx.authInfo?.clientId;
    if (modern) registerTasksMethods(server, { ...deps, principal });
    else registerLegacyTasksMethods(server, { ...deps, principal });
    return server;
  };
}
