/**
 * The end of a task: the one mapping from a closed workflow to what every reader reports
 * (tasks/get in both revisions, notifications, task handles, task_list, the finished-task cache,
 * the synchronous path). docs/contract.md, "The end of a task", has the table.
 *
 * The end comes from Temporal's close status and nothing else: the workflow runtime decides it
 * once and closes the workflow so that the status says it. A reader never re-derives it from the
 * cause of a failure (a workflow that FAILED because an inner scope was cancelled failed).
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { isCallToolResult as isSpecCallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { ApplicationFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { type CallToolResult, type JsonRpcError, MCP_PROTOCOL_ERROR } from '../contract';
import type { TaskState } from './task-snapshot';
import type { ResultMapping, ToolDefinition } from '../tool-definition';

/** What the store needs to know of a tool to turn its workflow's result into a CallToolResult. */
export type ToolResultSpec = Pick<ToolDefinition, 'outputSchema' | 'result'>;

export type EndState = Extract<TaskState, { status: 'completed' | 'failed' | 'cancelled' }>;

/** Temporal's close statuses (describe().status.name) and the end each one is. */
const END_OF_CLOSE_STATUS: Record<string, EndState['status']> = {
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  TERMINATED: 'failed',
  TIMED_OUT: 'failed',
};

/** The end a close status is; undefined for a workflow still running (or continued as new). */
export function endStatusOf(closeStatus: string): EndState['status'] | undefined {
  return Object.hasOwn(END_OF_CLOSE_STATUS, closeStatus) ? END_OF_CLOSE_STATUS[closeStatus] : undefined;
}

/**
 * The task's end, for a workflow that closed with `closeStatus`: a completed one's result mapped
 * to a CallToolResult (toCallToolResult, checked against the tool's outputSchema), a failed one's
 * failure mapped to a JSON-RPC error (failureToError); a cancelled one has neither.
 */
export async function endOf(handle: WorkflowHandle, closeStatus: string, spec: ToolResultSpec | undefined): Promise<EndState> {
  const status = endStatusOf(closeStatus);
  if (status === undefined) throw new Error(`the workflow ${handle.workflowId} has not closed (${closeStatus})`);
  if (status === 'cancelled') return { status };
  if (status === 'failed') return { status, error: failureToError(await failureOf(handle)) };
  return completedEnd(await handle.result(), spec);
}

/** The end of a task whose workflow completed with `value`: its result, or failed when it does not fit the tool's outputSchema. */
export async function completedEnd(value: unknown, spec: ToolResultSpec | undefined): Promise<EndState> {
  const result = toCallToolResult(value, spec?.result);
  const mismatch = spec?.outputSchema && !result.isError ? await outputMismatch(spec.outputSchema, result) : undefined;
  if (mismatch)
    return { status: 'failed', error: { code: -32603, message: `The tool's result does not match its outputSchema: ${mismatch}` } };
  return { status: 'completed', result };
}

/** The failure a closed, unsuccessful workflow ended with (Temporal's, as its client decodes it). */
async function failureOf(handle: WorkflowHandle): Promise<Error | undefined> {
  try {
    await handle.result();
  } catch (err) {
    if (err instanceof WorkflowFailedError) return err.cause;
    throw err;
  }
  return undefined;
}

/**
 * A workflow's result as a CallToolResult: one that already has that shape passes through; with
 * `auto`, a string becomes one text content and any other JSON value structuredContent plus
 * its JSON as text (a value that is not an object is wrapped as `{ "result": value }`, since
 * structuredContent is an object); with `text`, every value becomes one text content.
 */
export function toCallToolResult(value: unknown, mapping: ResultMapping = 'auto'): CallToolResult {
  if (isCallToolResult(value)) return value;
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const json = value === undefined ? null : value;
  const text = JSON.stringify(json);
  if (mapping === 'text') return { content: [{ type: 'text', text }] };
  const structured = typeof json === 'object' && json !== null && !Array.isArray(json) ? json : { result: json };
  return { content: [{ type: 'text', text }], structuredContent: structured as CallToolResult['structuredContent'] };
}

/**
 * A CallToolResult already: by the SDK's own CallToolResult schema, with structuredContent an
 * object (as the spec has it; the schema lets any JSON value through).
 */
function isCallToolResult(value: unknown): value is CallToolResult {
  if (!isSpecCallToolResult(value)) return false;
  const structured = (value as { structuredContent?: unknown }).structuredContent;
  return structured === undefined || (typeof structured === 'object' && structured !== null && !Array.isArray(structured));
}

/** Why the result's structuredContent does not fit the tool's outputSchema; undefined when it does. */
async function outputMismatch(schema: StandardSchemaWithJSON, result: CallToolResult): Promise<string | undefined> {
  if (result.structuredContent === undefined) return 'the result has no structuredContent';
  const checked = await schema['~standard'].validate(result.structuredContent);
  return checked.issues ? checked.issues.map((i) => i.message).join('; ') : undefined;
}

/** A failed workflow becomes a JSON-RPC error: the tool's own, or an internal error saying why. */
function failureToError(cause: Error | undefined): JsonRpcError {
  if (cause instanceof ApplicationFailure && cause.type === MCP_PROTOCOL_ERROR) {
    const detail = (cause.details?.[0] ?? {}) as { code?: number; data?: JsonRpcError['data'] }; // JSON, as the workflow wrote it
    return { code: detail.code ?? -32603, message: cause.message, ...(detail.data !== undefined ? { data: detail.data } : {}) };
  }
  if (cause instanceof TerminatedFailure)
    return {
      code: -32603,
      message: `The task was terminated in Temporal${cause.message && cause.message !== 'Terminated' ? `: ${cause.message}` : ''}`,
    };
  if (cause instanceof TimeoutFailure) return { code: -32603, message: 'The task timed out in Temporal' };
  return { code: -32603, message: `The task failed: ${cause?.message ?? 'unknown error'}` };
}
