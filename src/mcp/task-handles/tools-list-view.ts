import type { McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../tool-definition';
import type { ProtocolRevision } from '../revision';
import type { TaskHandles } from './task-handles';
import type { ToolScopes } from '../auth/tool-scopes';

interface Listed {
  tool: ToolDefinition;
  registered: RegisteredTool;
  taskTool: boolean;
}

/** The SDK's stored handler, reached through its protected accessor (it has no public one). */
type StoredHandler = (request: unknown, ctx: ServerContext) => Promise<unknown>;

/**
 * tools/list shows one of two views, chosen per request: a caller that declares Tasks (2026)
 * sees exactly the tools as before; one that does not also sees the task tools, tools that
 * run as tasks described with how to follow a handle, and no outputSchema on them (a handle is not
 * the tool's output, and clients check structuredContent against it). A 2025 request cannot
 * say whether its client speaks Tasks (the server is stateless): it gets the handle view with
 * `required` tools shown as `optional` (a tasks client still sends `task` for those).
 *
 * The SDK builds the listing from its registered tools at call time and synchronously, so the
 * view is set just before its handler runs (a pooled server serves one request at a time).
 */
export function installToolsListView(
  server: McpServer,
  listed: Listed[],
  taskHandles: TaskHandles,
  revision: ProtocolRevision,
  scopes?: ToolScopes,
): void {
  const low = server.server;
  const sdkList = (low as unknown as { _getRequestHandler(method: string): StoredHandler | undefined })._getRequestHandler('tools/list');
  if (!sdkList) throw new Error('unreachable: registerTool installs tools/list');
  const original = listed.map(({ registered }) => ({
    description: registered.description,
    outputSchema: registered.outputSchema,
    execution: registered.execution,
  }));
  const show = (handles: boolean) => {
    listed.forEach(({ tool, registered, taskTool }, i) => {
      const handled = handles && taskHandles.servesHandle(tool);
      registered.enabled = handles || !taskTool;
      registered.description = handled ? taskHandles.describeForHandles(tool) : original[i].description;
      registered.outputSchema = handled ? undefined : original[i].outputSchema;
      if (revision.toolExecution)
        registered.execution = handled && tool.taskMode === 'required' ? revision.toolExecution('optional') : original[i].execution;
    });
  };
  // A view's listing never changes for this (pooled) server, and building it converts every
  // tool's schema to JSON Schema, the most CPU a request without Temporal spends: built once per
  // view, then handed out as copies (a first page only: a cursor goes to the SDK as it is).
  const built = new Map<boolean, { tools: Array<{ name: string }> }>();
  const listing = async (handles: boolean, request: Parameters<StoredHandler>[0], ctx: Parameters<StoredHandler>[1]) => {
    const paged = (request as { params?: { cursor?: unknown } }).params?.cursor !== undefined;
    const cached = paged ? undefined : built.get(handles);
    if (cached) return structuredClone(cached);
    show(handles);
    const result = (await sdkList(request, ctx)) as { tools: Array<{ name: string }> };
    if (!paged) built.set(handles, structuredClone(result));
    return result;
  };
  low.removeRequestHandler('tools/list');
  low.setRequestHandler('tools/list', async (request, ctx) => {
    const result = await listing(!revision.callerSpeaksTasks(ctx), request, ctx);
    // every caller sees only the tools its token's scopes let it call
    const auth = ctx.http?.authInfo;
    const hidden = new Set(listed.filter(({ tool }) => scopes && !scopes.mayCall(tool, auth)).map(({ tool }) => tool.name));
    return (hidden.size ? { ...result, tools: result.tools.filter((t) => !hidden.has(t.name)) } : result) as never;
  });
}
