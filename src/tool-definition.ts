/**
 * A tool as both sides see it: the server lists, validates and starts it; the worker's plugin
 * checks that its workflow is registered (`workflowTypeOf`). Type-only imports of the SDKs, so
 * the worker loads no server code from here.
 */
import type { ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Duration } from '@temporalio/common';
import type { CallToolResult, RequestedSchema } from './contract';

/**
 * How a tool may run: `never` answers synchronously, `optional` becomes a task for clients
 * that declare the Tasks extension, `required` only runs as a task (callers without Tasks get
 * a task handle, or -32021 where handles are off or `requiredToolsNeedTasks` is set).
 */
export type TaskMode = 'never' | 'optional' | 'required';

/** A JSON Schema of an object (a tool's inputSchema / outputSchema as JSON). */
export type JsonSchemaObject = { type: 'object' } & Record<string, unknown>;

/**
 * How a workflow result that is not a CallToolResult becomes one: `auto` (a string is one text
 * content, any other JSON value is structuredContent plus its JSON as text), `text` (always
 * one text content).
 */
export type ResultMapping = 'auto' | 'text';

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
  /**
   * Instead of `workflow`: the workflow type to start by name, for a workflow written elsewhere
   * (any SDK, any language) and run by other workers (`defineWorkflowTool`, tools files).
   */
  workflowType?: string;
  /** The task queue to start it on; default: the server's `taskQueue`. */
  taskQueue?: string;
  /** Temporal's workflow execution timeout of each call. */
  executionTimeout?: Duration;
  /** The result's structuredContent is checked against it (a mismatch fails the task, -32603); listed in tools/list. */
  outputSchema?: StandardSchemaWithJSON;
  /** How a result that is not a CallToolResult becomes one (default `auto`). */
  result?: ResultMapping;
  /** An input round answered before the task exists (MRTR), merged into the arguments. */
  beforeTask?: PreTaskInput;
  /**
   * An in-process, NON-durable handler instead of a workflow: only for the conformance
   * fixtures that must talk on the request's own stream (progress, logging, capabilities).
   */
  local?: (args: Record<string, unknown>, ctx: ServerContext) => Promise<unknown>;
  /**
   * OAuth scopes a caller's token must carry to see and call this tool (with authentication on).
   * A call without them is answered 403 `insufficient_scope` naming them, before Temporal is touched.
   */
  scopes?: string[];
  /**
   * false: a retry of an identical call (same caller, tool and arguments) within the retry
   * grace starts a task of its own, and a call dropped before any answer cancels its task.
   * Default true: such a retry attaches to the earlier call's task (docs/clients.md, "Retries").
   */
  dedupe?: boolean;
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

/** The Temporal workflow type a tool starts: its `workflowType`, else its workflow function's name. */
export function workflowTypeOf(tool: ToolDefinition): string {
  if (tool.workflowType) return tool.workflowType;
  if (!tool.workflow) throw new Error(`tool "${tool.name}" has no workflow`);
  return tool.workflow.name;
}
