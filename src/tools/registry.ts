import type { ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { CallToolResult } from '../workflows/task-types';

/**
 * How a tool may run: `never` answers synchronously, `optional` becomes a task for clients
 * that declare the Tasks extension, `required` only runs as a task (-32021 otherwise).
 */
export type TaskMode = 'never' | 'optional' | 'required';

/** A tool: its wire description and the Temporal workflow (by type name) that implements it. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  /** A zod object or any Standard Schema with JSON Schema: validates arguments, feeds tools/list. */
  inputSchema: StandardSchemaWithJSON;
  taskMode: TaskMode;
  /** Workflow type; defaults to the tool name (export the workflow under that name). */
  workflowType?: string;
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
  requestedSchema: Record<string, unknown>;
  /** Where the accepted content goes in the workflow's arguments. */
  argument: string;
}

export function defineTool(tool: ToolDefinition): ToolDefinition {
  return tool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  register(...tools: ToolDefinition[]): this {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
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

export function workflowTypeOf(tool: ToolDefinition): string {
  return tool.workflowType ?? tool.name;
}

export type { CallToolResult };
