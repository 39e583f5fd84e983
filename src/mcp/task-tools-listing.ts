import type { McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../tool-definition';
import type { ProtocolRevision } from './revision';
import type { TaskTools } from './task-tools';
import type { ToolScopes } from './http/tool-scopes';

interface Listed {
  tool: ToolDefinition;
  registered: RegisteredTool;
  companion: boolean;
}

/** The SDK's stored handler, reached through its protected accessor (it has no public one). */
type StoredHandler = (request: unknown, ctx: ServerContext) => Promise<unknown>;

/**
 * tools/list shows one of two views, chosen per request: a caller that declares Tasks (2026)
 * sees exactly the tools as before; one that does not also sees the companion tools, task
 * tools described with how to follow a handle, and no outputSchema on them (a handle is not
 * the tool's output, and clients check structuredContent against it). A 2025 request cannot
 * say whether its client speaks Tasks (the server is stateless): it gets the handle view with
 * `required` tools shown as `optional` (a tasks client still sends `task` for those).
 *
 * The SDK builds the listing from its registered tools at call time and synchronously, so the
 * view is set just before its handler runs (a pooled server serves one request at a time).
 */
export function installToolsListView(server: McpServer, listed: Listed[], taskTools: TaskTools, revision: ProtocolRevision, scopes?: ToolScopes): void {
  const low = server.server;
  const sdkList = (low as unknown as { _getRequestHandler(method: string): StoredHandler | undefined })._getRequestHandler('tools/list');
  if (!sdkList) throw new Error('unreachable: registerTool installs tools/list');
  const original = listed.map(({ registered }) => ({ description: registered.description, outputSchema: registered.outputSchema, execution: registered.execution }));
  const show = (handles: boolean) => {
    listed.forEach(({ tool, registered, companion }, i) => {
      const handled = handles && taskTools.servesHandle(tool);
      registered.enabled = handles || !companion;
      registered.description = handled ? taskTools.describeForHandles(tool) : original[i].description;
      registered.outputSchema = handled ? undefined : original[i].outputSchema;
      if (revision.toolExecution) registered.execution = handled && tool.taskMode === 'required' ? revision.toolExecution('optional') : original[i].execution;
    });
  };
  low.removeRequestHandler('tools/list');
  low.setRequestHandler('tools/list', async (request, ctx) => {
    show(!revision.callerSpeaksTasks(ctx));
    const result = (await sdkList(request, ctx)) as { tools: Array<{ name: string }> };
    // every caller sees only the tools its token's scopes let it call
    const auth = ctx.http?.authInfo;
    const hidden = new Set(listed.filter(({ tool }) => scopes && !scopes.mayCall(tool, auth)).map(({ tool }) => tool.name));
    return (hidden.size ? { ...result, tools: result.tools.filter((t) => !hidden.has(t.name)) } : result) as never;
  });
}
