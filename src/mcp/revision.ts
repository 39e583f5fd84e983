/**
 * What a protocol revision adds to the revision-free core (core/). The SDK tells each request's
 * revision (its `ctx.era`); the core asks that revision (registered in revisions.ts) whatever
 * differs between them, and a revision's folder holds everything else of it, under the same
 * file names in each: index.ts (this interface), tasks-methods.ts, front.ts (HTTP in front of
 * the SDK), wire.ts. Dropping a revision is deleting its folder and its line in revisions.ts.
 */
import type { McpServer, ProtocolEra, ServerContext, ToolExecution, Transport } from '@modelcontextprotocol/server';
import type { InputRequest } from '../contract';
import type { TaskSnapshot } from '../tasks';
import type { TaskMode, ToolDefinition } from '../tool-definition';
import type { McpContext } from './context';
import type { FrontHandler } from './http/http-server';

export interface ProtocolRevision {
  /** The revision, as logs name it. */
  readonly name: '2025-11-25' | '2026-07-28';
  /** The SDK's name for this revision's requests (`ctx.era`, and the HTTP routing of isLegacyRequest). */
  readonly sdkEra: ProtocolEra;
  /** The server capabilities this revision advertises. */
  capabilities(listing: boolean): Record<string, unknown>;
  /** Whether requests name their method in a header the SDK has checked (then servers are built per method). */
  readonly methodHeader: boolean;
  /** tools/list: a tool's `execution` for this task mode, where the revision lists one. */
  toolExecution?(mode: TaskMode): ToolExecution;
  /** Registers the tasks methods on a per-request server. */
  registerMethods(server: McpServer, mcp: McpContext): void;
  /** Whether this request says its caller speaks Tasks (false: task handles and their task tools apply). */
  callerSpeaksTasks(ctx: ServerContext): boolean;
  /** Whether this tools/call asks to run as a task. */
  requestsTask(params: { task?: unknown }, ctx: ServerContext): boolean;
  /** A tools/call that asks for a task of a tool that never runs as one: refused, or undefined (it runs synchronously). */
  refuseTaskOf(tool: ToolDefinition): Error | undefined;
  /** A tools/call without a task of a tool that only runs as one (and no handle serves it). */
  taskRequired(tool: ToolDefinition): Error;
  /** The answer to a task-augmented tools/call, once Temporal acknowledged the start. */
  createTaskResult(task: TaskSnapshot, pollIntervalMs: number): unknown;
  /**
   * How a task handle's call asks the task's questions: `answer`, in an input_required round
   * of its answer (to callers that can show them); `stream`, as requests on the call's own
   * stream, built by `inputRequestMessage` (answers come back as POSTed responses).
   */
  readonly handleInput: 'answer' | 'stream';
  inputRequestMessage?(
    taskId: string,
    key: string,
    request: InputRequest,
    viaHandle: boolean,
  ): { jsonrpc: '2.0'; id: string; method: string; params: unknown };
  /** The HTTP handler in front of the SDK's for this revision's requests, and what closing the server stops. */
  front?(mcp: McpContext): { serve: FrontHandler; close?(): void };
}

/** What a call needs besides its context: its protocol revision, and (2025 HTTP) the transport its stream is on. */
export interface CallSite {
  revision: ProtocolRevision;
  transport: Transport | undefined;
}
