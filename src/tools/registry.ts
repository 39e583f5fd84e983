import type { ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { CallToolResult, RequestedSchema } from '../contract';

/**
 * How a tool may run: `never` answers synchronously, `optional` becomes a task for clients
 * that declare the Tasks extension, `required` only runs as a task (-32021 otherwise).
 */
export type TaskMode = 'never' | 'optional' | 'required';

/** A workflow behind a tool: its arguments are the tool's validated arguments. */
export type ToolWorkflow<A> = (args: A) => Promise<CallToolResult>;

/** A tool: its wire description and the Temporal workflow that implements it. */
export interface ToolDefinition<S extends StandardSchemaWithJSON = StandardSchemaWithJSON> {
  name: string;
  title?: string;
  description: string;
  /** A zod object or any Standard Schema with JSON Schema: validates arguments, feeds tools/list. */
  inputSchema: S;
  taskMode: TaskMode;
  /**
   * The workflow function. The server starts it by its name (the workflow type), so it must be
   * exported under that name from the worker's workflows; McpTasksPlugin checks it does.
   */
  workflow?: { name: string; (args: never): Promise<CallToolResult> };
  /** An input round answered before the task exists (MRTR), merged into the arguments. */
  beforeTask?: PreTaskInput;
  /**
   * An in-process, NON-durable handler instead of a workflow: only for the conformance
   * fixtures that must talk on the request's own stream (progress, logging, capabilities).
   */
  local?: (args: Record<string, unknown>, ctx: ServerContext) => Promise<unknown>;
}

export interface PreTaskInput {
  key: string;
  message: string;
  requestedSchema: RequestedSchema;
  /** Where the accepted content goes in the workflow's arguments. */
  argument: string;
}

/**
 * One tool, typed once: the workflow's argument type must be what the schema produces
 * (a mismatch is a compile error).
 */
export function defineTool<S extends StandardSchemaWithJSON>(
  tool: ToolDefinition<S> & { workflow: ToolWorkflow<StandardSchemaWithJSON.InferOutput<S>> },
): ToolDefinition {
  return tool;
}


export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(tools: ToolDefinition[] = []) {
    this.register(...tools);
  }

  register(...tools: ToolDefinition[]): this {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
      if (!tool.local && !tool.workflow?.name) throw new Error(`tool "${tool.name}": its workflow function has no name (the workflow type)`);
      this.tools.set(tool.name, tool);
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

/** The Temporal workflow type a tool starts: its workflow function's name. */
export function workflowTypeOf(tool: ToolDefinition): string {
  if (!tool.workflow) throw new Error(`tool "${tool.name}" has no workflow`);
  return tool.workflow.name;
}
