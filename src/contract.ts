/**
 * The contract between the MCP server and the workflows behind its tools: the one home of every
 * name both sides use. Workflow-safe (no Node, no MCP SDK at run time), so the server, the
 * worker and workflow code all import it. docs/contract.md describes it for other languages.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core' with { 'resolution-mode': 'import' };
import type { ContentBlockV2, ElicitResultV2, ErrorV2, InputRequestV2 } from '@modelcontextprotocol/ext-tasks/core/v2' with {
  'resolution-mode': 'import',
};

/** Bumped when a name or a shape below changes incompatibly. */
export const CONTRACT_VERSION = 1;

/** A taskId (= the workflow id) is this prefix and 192 random bits, base64url. */
export const TASK_ID_PREFIX = 'task_';

/** Memo keys: fixed task metadata written at start, and the progress the workflow publishes. */
export const TASK_MEMO_KEY = 'mcpTask';
export const PROGRESS_MEMO_KEY = 'mcpProgress';

/** Custom search attributes (Keyword), set only where the namespace has them registered. */
export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_TASK_STATUS = defineSearchAttributeKey('McpTaskStatus', SearchAttributeType.KEYWORD);
/** A keyed hash of the task's owner (never the principal itself): lists a caller's tasks without a scan. */
export const MCP_OWNER = defineSearchAttributeKey('McpOwner', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTES = [MCP_TOOL, MCP_TASK_STATUS, MCP_OWNER];

/** tasks/update answers, `{ key: response }`, for keys of the pending inputRequests. */
export const inputResponsesSignal = defineSignal<[Record<string, unknown>]>('mcp.inputResponses');

/** A task's handle reached its caller (see TaskMemo.claimWithinMs). */
export const claimedSignal = defineSignal('mcp.claimed');
/** The fresh progress, for the moments the memo lags (a signal not yet applied). */
export const taskProgressQuery = defineQuery<TaskProgress>('mcp.taskProgress');

/** ApplicationFailure type whose details[0] `{code, data?}` make the task `failed` with that JSON-RPC error. */
export const MCP_PROTOCOL_ERROR = 'McpProtocolError';
/** The failure type of a task nobody claimed in time (its claim guard fired; docs/contract.md). */
export const MCP_TASK_UNCLAIMED = 'McpTaskUnclaimed';

/** Temporal refuses payloads over 2 MB: arguments and results above this are refused clearly. */
export const MAX_ARGUMENT_BYTES = 1_500_000;
export const MAX_RESULT_BYTES = 1_500_000;

/** What a tool's workflow returns: a CallToolResult (resultType is added on the wire). */
export interface CallToolResult {
  content: ContentBlockV2[];
  isError?: boolean;
  structuredContent?: { [key: string]: JsonValue };
}
export type InputRequest = InputRequestV2;
/** The JSON Schema of a form elicitation's answer. */
export type RequestedSchema = Readonly<Record<string, JsonValue>>;
/** A JSON-RPC error object, as a failed task carries it. */
export type JsonRpcError = ErrorV2;
export type ElicitResult = ElicitResultV2;

/** The `mcpProgress` memo: what a running task publishes about itself. */
export interface TaskProgress {
  status: 'working' | 'input_required';
  statusMessage?: string;
  lastUpdatedAt: string;
  inputRequests: Record<string, InputRequest>;
}

/**
 * What an activity reports about itself, as its heartbeat details (issue 22, item 6): the first
 * heartbeat detail is a JSON object with this under `mcpProgress`. Plain JSON (no class, no
 * TypeScript-only encoding), so Python (`activity.heartbeat({"mcpProgress": {...}})`), Go
 * (`activity.RecordHeartbeat(ctx, map[string]any{"mcpProgress": ...})`) and Java activities
 * write the same thing; other keys of that object are the activity's own (a checkpoint).
 */
export const ACTIVITY_PROGRESS_KEY = 'mcpProgress';

export interface ActivityProgress {
  /** Shown as the task's statusMessage while the activity runs, e.g. "exporting rows". */
  message: string;
  /** Units done so far and, when known, in all; shown as "(4,000 of 10,000)" after the message. */
  done?: number;
  total?: number;
}

export interface ActivityHeartbeatDetails {
  [ACTIVITY_PROGRESS_KEY]: ActivityProgress;
}

/** The progress in one decoded heartbeat detail, or undefined when it carries none (or a malformed one). */
export function activityProgressOf(detail: unknown): ActivityProgress | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const p = (detail as Record<string, unknown>)[ACTIVITY_PROGRESS_KEY] as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null || typeof p.message !== 'string') return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);
  const done = count(p.done);
  const total = count(p.total);
  return { message: p.message, ...(done !== undefined ? { done } : {}), ...(total !== undefined ? { total } : {}) };
}

/**
 * The statusMessage an activity's progress reads as: the message, then "(done of total)" or
 * "(done)" with thousands separators, so every language's activity reads the same on the wire.
 */
export function activityProgressText({ message, done, total }: ActivityProgress): string {
  if (done === undefined) return message;
  const n = (x: number) => x.toLocaleString('en-US');
  return `${message} (${n(done)}${total !== undefined ? ` of ${n(total)}` : ''})`;
}

/**
 * The header the task runtime puts on every activity it schedules: the workflow's
 * originalExecutionRunId (a JSON string). A reset gives the workflow a new runId but keeps this
 * one, and activities cannot see it otherwise (their Info has only the runId), so
 * idempotencyKey() stays the same across a reset.
 */
export const ORIGINAL_RUN_HEADER = 'mcpOriginalRunId';

/** The `mcpTask` memo, written by the server at start. */
export interface TaskMemo {
  tool: string;
  createdAt: string;
  ttlMs: number;
  /** Keyed hash of the owning principal; absent without authentication. */
  owner?: string;
  /** History length after which long tools continue as new. */
  historyLimit?: number;
  /** The start's summary (masked arguments): continue-as-new carries no summary, so every run shows this in its details. */
  summary?: string;
  /**
   * Set on runs whose caller gets a handle only after a bounded wait: unless the server signals
   * `claimedSignal` (the handle reached its caller) within this many ms, nobody can reach the
   * task (its server died mid-call) and it cancels itself.
   */
  claimWithinMs?: number;
  /**
   * How long input requests wait unanswered before the task ends failed (McpTaskUnanswered),
   * its undos run: nobody is left to answer them (docs/contract.md, "Unanswered input"). Set by
   * the server: the ttl for an authenticated caller, shorter for anonymous ones; absent: no limit.
   */
  answerWithinMs?: number;
  /**
   * The task runtime revision the task was started for (TASK_RUNTIME_REVISION). Recorded in the
   * start event, so replay sees it: a task takes the runtime's changes of its revision and
   * earlier ones with no patch marker (and, from revision 2, no progress write at its end); for
   * later changes, and on a task without it (started by an older server), `patched()` decides.
   */
  runtime?: number;
  /**
   * W3C traceparent of the span that started the task (tracing on, sampled): later spans about
   * the task link to its trace, and logs name its trace id. A trace id is no secret.
   */
  traceparent?: string;
}

/**
 * What TaskMemo.runtime is set to at start. Each runtime patch (src/workflows/patches.ts) names
 * the revision it arrived in, and applies with no marker to tasks started for that revision or
 * a later one. 2: the first five patches, and progress pending when the task ends is not written
 * (it would land in the workflow task that ends it, where nobody reads it). 3: one decided end
 * (issue 31: a cancellation nobody requested and the claim guard end the task failed), an input
 * timeout is one deadline, the claim deadline holds across continue-as-new. 4: input requests
 * unanswered for TaskMemo.answerWithinMs end the task failed. Deploy workers
 * before the servers that set a new revision: a worker that does not know a revision's patches
 * takes their old paths on such a task and writes no marker for them, so a newer worker that
 * replays its history would take the new paths. (Workers from before revision 2 asked patched()
 * for every patch, so their markers let replay follow them on tasks of revision 2.)
 */
export const TASK_RUNTIME_REVISION = 4;
