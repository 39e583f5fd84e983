/**
 * The workflow-side task runtime that every tool workflow uses: it publishes the task's
 * progress (statusMessage, pending input requests) where tasks/get reads it, receives
 * tasks/update answers as a signal, and turns a tool's outcome into the workflow's result.
 *
 * Progress lives in the workflow's memo (read by describe(), which needs no worker) and is
 * also served by a query (fresh even while a signal waits to be applied).
 */
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  ContinueAsNew,
  log,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type CallToolResult,
  type InputRequest,
  inputResponsesSignal,
  MAX_RESULT_BYTES,
  MCP_PROTOCOL_ERROR,
  MCP_TASK_STATUS,
  PROGRESS_MEMO_KEY,
  TASK_MEMO_KEY,
  type TaskMemo,
  type TaskProgress,
  taskProgressQuery,
} from '../contract';
import { type CarriedStep, restoreSteps } from './compensation';
import { endRequested, rememberTaskScope } from './cancel-origin';
import { decideEnd, type TaskEnd } from './end';
import { applies, leanEnd, PATCHES } from './patches';

export interface RuntimeState {
  progress: TaskProgress;
  /** What the memo (and McpTaskStatus) holds: progress is written at most once per activation. */
  written: TaskProgress;
  flushPending: boolean;
  /** Whether this run writes progress once per activation (PATCHES.flushPerActivation). */
  flushPerActivation?: boolean;
  flusher?: Promise<void>;
  /** Counts progress changes, so the flusher knows when an activation has settled. */
  published: number;
  responses: Map<string, unknown>;
  usedKeys: Set<string>;
}

/** The runtime's state handed from one run to the next by continue-as-new. */
export interface RuntimeCarry {
  progress: TaskProgress;
  responses: Record<string, unknown>;
  usedKeys: string[];
  /** Undos registered in earlier runs and not run yet (absent in chains that predate them). */
  steps?: CarriedStep[];
  /** The claim deadline (workflow time, ms since the epoch) of a chain still unclaimed (see claim-guard.ts). */
  claimDeadline?: number;
}

let state: RuntimeState | undefined;

/** Installs the handlers once per workflow run; every helper below calls it. */
export function runtime(carry?: RuntimeCarry): RuntimeState {
  if (state) return state;
  const progress = carry?.progress ?? { status: 'working', lastUpdatedAt: now(), inputRequests: {} };
  const s: RuntimeState = {
    progress,
    written: progress,
    flushPending: false,
    published: 0,
    responses: new Map(Object.entries(carry?.responses ?? {})),
    usedKeys: new Set(carry?.usedKeys ?? []),
  };
  setHandler(taskProgressQuery, () => s.progress);
  setHandler(inputResponsesSignal, (responses) => {
    for (const [key, value] of Object.entries(responses ?? {})) {
      // Keys not outstanding (never issued, already answered) are ignored; only the requests'
      // own keys are outstanding (`constructor`, `toString`, `__proto__` are not)
      if (isPending(s, key) && !s.responses.has(key)) s.responses.set(key, value);
    }
  });
  state = s;
  return s;
}

/** Whether `key` is an outstanding input request: an own key of inputRequests. */
export function isPending(s: RuntimeState, key: string): boolean {
  return Object.hasOwn(s.progress.inputRequests, key);
}

/** Sets the task's statusMessage: shown by tasks/get and in the Temporal UI. */
export function setStatusMessage(message: string): void {
  publish({ ...runtime().progress, statusMessage: message });
}

/** Ends the task as `failed` with this JSON-RPC error (a protocol-level failure, not a tool error). */
export function protocolError(code: number, message: string, data?: unknown): ApplicationFailure {
  return ApplicationFailure.create({ type: MCP_PROTOCOL_ERROR, message, details: [{ code, data }], nonRetryable: true });
}

export function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], isError };
}

export function publishInputs(inputRequests: Record<string, InputRequest>): void {
  const status = Object.keys(inputRequests).length > 0 ? 'input_required' : 'working';
  publish({ ...runtime().progress, status, inputRequests });
}

/**
 * Progress is current at once for the query; the memo gets it at the end of the activation, so
 * many messages set in one go write one history event, and a repeated one writes none.
 */
function publish(progress: Omit<TaskProgress, 'lastUpdatedAt'>): void {
  const s = runtime();
  if (sameProgress(s.progress, progress)) return;
  s.progress = { ...progress, lastUpdatedAt: now() };
  s.published++;
  if (s.flushPending) return;
  s.flushPending = true;
  s.flushPerActivation ??= applies(PATCHES.flushPerActivation);
  if (!s.flushPerActivation)
    void Promise.resolve().then(flushProgress); // builds before the patch
  else s.flusher ??= startFlusher(s);
}

/**
 * Writes progress once per activation. The SDK checks conditions only once the activation's
 * jobs and microtasks have run, but other conditions woken in the same round (the tool's own
 * waits) let the workflow go on after this wakes: so it waits further rounds until one passes
 * with no new progress, then writes once (an answer consumed and the next question asked write
 * one memo update, not two). Shielded from a cancel, which must not end it.
 */
function startFlusher(s: RuntimeState): Promise<void> {
  return CancellationScope.nonCancellable(async () => {
    for (;;) {
      await condition(() => s.flushPending);
      for (let seen = -1; seen !== s.published;) {
        seen = s.published;
        await condition(() => true); // the next round: whatever else woke has run
      }
      if (s.flushPending) flushProgress(); // not when the task's end dropped it (settleProgressAtEnd)
    }
  });
}

/**
 * At a task's end, progress still pending is written (tasks before runtime revision 2), or
 * dropped: it would land in the same workflow task as the end, where nobody can read it
 * (tasks/get answers a closed task from its outcome; visibility gets the final McpTaskStatus).
 */
function settleProgressAtEnd(): void {
  if (!leanEnd()) return flushProgress();
  runtime().flushPending = false;
}

/** Writes pending progress to the memo, the UI's current details and McpTaskStatus. */
export function flushProgress(): void {
  const s = runtime();
  s.flushPending = false;
  if (sameProgress(s.written, s.progress)) return;
  const previousStatus = s.written.status;
  s.written = s.progress;
  upsertMemo({ [PROGRESS_MEMO_KEY]: s.progress });
  log.info('task progress', {
    status: s.progress.status,
    statusMessage: s.progress.statusMessage,
    waitingFor: Object.keys(s.progress.inputRequests),
  });
  setCurrentDetails(describeProgress(s.progress));
  if (previousStatus !== s.progress.status) recordStatus(s.progress.status);
}

function sameProgress(a: Omit<TaskProgress, 'lastUpdatedAt'>, b: Omit<TaskProgress, 'lastUpdatedAt'>): boolean {
  const keys = (p: typeof a) => Object.keys(p.inputRequests).join('\n');
  return a.status === b.status && a.statusMessage === b.statusMessage && keys(a) === keys(b);
}

function describeProgress(p: TaskProgress): string {
  const waiting = Object.keys(p.inputRequests);
  const lines = [...detailsHead(), `**${p.status}**${p.statusMessage ? `: ${p.statusMessage}` : ''}`];
  if (waiting.length) lines.push(`waiting for input: ${waiting.join(', ')}`);
  return lines.join('\n\n');
}

function now(): string {
  return new Date().toISOString(); // workflow time: deterministic on replay
}

/**
 * Runs a tool's workflow as a task (the interceptor calls this): installs the runtime first,
 * decides the task's end once (src/workflows/end.ts) and records it everywhere from that one
 * decision: the value the workflow returns or throws (Temporal's close status), McpTaskStatus and
 * the UI's final details. A cancel requested before the completion is recorded (even after the
 * tool returned) ends it cancelled with every registered undo run; undos that fail end it
 * failed, naming them; a result too large for a Temporal payload fails it with a typed failure.
 */
export async function runAsTask(run: () => Promise<unknown>, carry?: RuntimeCarry): Promise<unknown> {
  runtime(carry);
  restoreSteps(carry?.steps);
  rememberTaskScope();
  let result: unknown;
  try {
    result = await run();
    if (endRequested() && applies(PATCHES.lateCancel)) throw new CancelledFailure('cancelled before the task completed');
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err; // the next run goes on with the same task
    return finish(await decideEnd(err));
  }
  return finish(completedEnd(result));
}

/** A result within the payload limit completes the task; a larger one fails it clearly. */
function completedEnd(result: unknown): TaskEnd {
  const bytes = new TextEncoder().encode(JSON.stringify(result)).length;
  if (bytes <= MAX_RESULT_BYTES) return { status: 'completed', result };
  const message = `The tool's result is ${bytes} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`;
  return { status: 'failed', failure: protocolError(-32603, message, { resultBytes: bytes, limitBytes: MAX_RESULT_BYTES }) };
}

/** Records the decided end (McpTaskStatus, the UI's details) and returns or throws it. */
function finish(end: TaskEnd): unknown {
  if (end.status === 'bug') throw end.error; // no end: the workflow task fails, retried
  settleProgressAtEnd();
  recordStatus(end.status);
  setCurrentDetails(describeEnd(end));
  if (end.status === 'completed') return end.result;
  throw end.failure;
}

/** The UI's final details: the end and why (a cancellation's own message only says what it interrupted). */
function describeEnd(end: TaskEnd): string {
  const why =
    end.status === 'cancelled'
      ? ': tasks/cancel, every step undone'
      : end.status === 'failed'
        ? `: ${(end.failure as { message?: string }).message ?? String(end.failure)}`
        : '';
  return [...detailsHead(), `**${end.status}**${why}`].join('\n\n');
}

/**
 * What the UI's details start with, on every run (continue-as-new carries no summary or static
 * details, the memo goes along): the call's summary and, when traced, the trace to look up.
 * Current details are not in the history: replay is unaffected.
 */
function detailsHead(): string[] {
  const memo = workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined;
  const traceId = memo?.traceparent?.split('-')[1];
  return [...(memo?.summary ? [memo.summary] : []), ...(traceId ? [`trace ${traceId}`] : [])];
}

/** McpTaskStatus exists only where the server registered it and set it at start. */
function recordStatus(status: string): void {
  if (workflowInfo().searchAttributes?.[MCP_TASK_STATUS.name]) upsertSearchAttributes({ [MCP_TASK_STATUS.name]: [status] });
}
