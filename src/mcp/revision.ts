/**
 * What a protocol revision adds to the era-free core. The SDK tells each request's era; the core
 * asks that era's revision (registered in revisions.ts) whatever differs between them, and a
 * revision's folder holds everything else of it (its tasks methods, wire shapes, streams).
 * Dropping a revision is deleting its folder and its line in revisions.ts.
 */
import type { AuthInfo, McpRequestContext, McpServer, ServerContext, ToolExecution } from '@modelcontextprotocol/server';
import type { InputRequest } from '../contract';
import type { TaskSnapshot, TaskWatcher, TemporalTaskStore } from '../tasks';
import type { TaskMode, ToolDefinition } from '../tool-definition';
import type { ServerConfig } from './config';
import type { RequestBody } from './http/body';
import type { WatchLimits } from './watch-limits';
import type { TaskReader } from './polled-tasks';

export type Era = McpRequestContext['era'];

export interface RevisionMethodsDeps {
  store: TemporalTaskStore;
  watcher: TaskWatcher;
  /** What tasks/get reads through: a polled task is answered from its watch (unless turned off). */
  reader: TaskReader;
  pollIntervalMs: number;
  /** tasks/list (2025) and the list tool exist only with authentication and the McpOwner search attribute. */
  listing: boolean;
  /** Every stream or held call that follows a task holds one place. */
  limits: WatchLimits;
}

export interface RevisionFrontDeps {
  config: ServerConfig;
  store: TemporalTaskStore;
  watcher: TaskWatcher;
  serverInfo: { name: string; version: string };
  limits: WatchLimits;
  /** A refused or dismissed input request: a call of this replica waiting on it need not wait out its bound. */
  inputRefused(taskId: string, key: string): void;
}

/** A handler in front of the SDK's (HTTP): a Response, or undefined to let the SDK serve the request. */
export type FrontHandler = (request: Request, authInfo: AuthInfo | undefined, body?: RequestBody) => Promise<Response | undefined>;

export interface ProtocolRevision {
  readonly era: Era;
  /** The server capabilities this revision advertises. */
  capabilities(listing: boolean): Record<string, unknown>;
  /** Whether requests name their method in a header the SDK has checked (then servers are built per method). */
  readonly methodHeader: boolean;
  /** tools/list: a tool's `execution` for this task mode, where the revision lists one. */
  toolExecution?(mode: TaskMode): ToolExecution;
  /** Registers the tasks methods on a per-request server. */
  registerMethods(server: McpServer, deps: RevisionMethodsDeps): void;
  /** Whether this request says its caller speaks Tasks (false: task handles and the companion tools apply). */
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
  inputRequestMessage?(taskId: string, key: string, request: InputRequest, viaHandle: boolean): { jsonrpc: '2.0'; id: string; method: string; params: unknown };
  /** HTTP handlers in front of the SDK's, and what closing the server stops. */
  front?(deps: RevisionFrontDeps): { serve: FrontHandler; close?(): void };
}
