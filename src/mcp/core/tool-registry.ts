import { type ToolDefinition, workflowTypeOf } from '../../tool-definition';

/** The server's tools by name (tools/list, tools/call); a workflow tool's `workflowType` is resolved here, once. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(tools: ToolDefinition[] = []) {
    this.register(...tools);
  }

  register(...tools: ToolDefinition[]): this {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
      for (const scope of tool.scopes ?? [])
        if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
          throw new Error(`tool "${tool.name}": scope ${JSON.stringify(scope)} is not an OAuth scope token`);
      if (tool.local) {
        this.tools.set(tool.name, tool);
        continue;
      }
      if (!tool.workflowType && !tool.workflow?.name)
        throw new Error(`tool "${tool.name}": its workflow function has no name (the workflow type)`);
      this.tools.set(tool.name, { ...tool, workflowType: workflowTypeOf(tool) });
    }
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }
}
