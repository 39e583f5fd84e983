import {
  Client,
  WorkflowExecutionDescription,
  WorkflowFailedError,
  WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, SearchAttributePair, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { inputResponsesSignal, taskProgressQuery } from '../workflows/task-runtime';
import type { CallToolResult, TaskProgress } from '../workflows/task-types';
import { MCP_PROTOCOL_ERROR, PROGRESS_MEMO_KEY, TASK_MEMO_KEY } from '../workflows/task-types';
import { MCP_TASK_STATUS, MCP_TOOL } from './search-attributes';
import type { JsonRpcErrorObject, TaskMemo, TaskSnapshot, TaskState } from './task-snapshot';
import { isTerminal } from './detailed-task';
import { whyResponseDoesNotFit } from './input-responses';
import { mintTaskId } from './task-id';
import { TerminalTaskCache } from './terminal-cache';

export interface TaskStoreOptions {
  taskQueue: string;
  /** How long a task stays readable after createdAt (already capped by the namespace retention). */
  ttlMs: number;
  /** Bound on every Temporal call, so an unreachable server gives an error, not a hang. */
  temporalTimeoutMs: number;
  /** Bound on a query to a running workflow before answering from describe(). */
  queryTimeoutMs: number;
  /** History length after which long tools continue as new. */
  historyLimit: number;
  /** Whether McpTool / McpTaskStatus are registered in the namespace. */
  searchAttributes: boolean;
}

export interface StartTaskInput {
  tool: string;
  workflowType: string;
  arguments: Record<string, unknown>;
  owner?: string;
  summary: string;
}

/** An answer in tasks/update that does not fit the pending request it answers. */
export class InputResponseError extends Error {
  constructor(readonly key: string, readonly reason: string) {
    super(`inputResponses.${key}: ${reason}`);
  }
}

/** A JSON-RPC error raised by a tool's workflow; the sync path answers it as such. */
export class ToolProtocolError extends Error {
  constructor(readonly error: JsonRpcErrorObject) {
    super(error.message);
  }
}

/** All task state lives in Temporal: this is the one place that knows both vocabularies. */
export class TemporalTaskStore {
  private readonly finished = new TerminalTaskCache();

  constructor(private readonly client: Client, private readonly opts: TaskStoreOptions) {}

  /** Starts the workflow; resolves only once Temporal has acknowledged (persisted) the start. */
  async start(input: StartTaskInput): Promise<TaskSnapshot> {
    const taskId = mintTaskId();
    const memo: TaskMemo = { tool: input.tool, createdAt: new Date().toISOString(), ttlMs: this.opts.ttlMs, owner: input.owner, historyLimit: this.opts.historyLimit };
    const handle = await this.bounded(() =>
      this.client.workflow.start(input.workflowType, {
        workflowId: taskId,
        taskQueue: this.opts.taskQueue,
        args: [input.arguments],
        memo: { [TASK_MEMO_KEY]: memo },
        staticSummary: input.summary,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: this.searchAttributes(input.tool),
      }),
    );
    return {
      taskId, tool: input.tool, runId: handle.firstExecutionRunId, createdAt: memo.createdAt, lastUpdatedAt: memo.createdAt,
      ttlMs: memo.ttlMs, owner: memo.owner, state: { status: 'working' },
    };
  }

  /** The synchronous path: the same durable workflow, awaited. Throws ToolProtocolError for a failed one. */
  async run(input: StartTaskInput): Promise<CallToolResult> {
    const { taskId } = await this.start(input);
    const snapshot = await this.outcome(this.client.workflow.getHandle(taskId));
    if (snapshot.status === 'completed') return snapshot.result;
    if (snapshot.status === 'failed') throw new ToolProtocolError(snapshot.error);
    throw new ToolProtocolError({ code: -32603, message: 'The tool was cancelled' });
  }

  /**
   * The task, or undefined when unknown, expired or owned by another principal (all answered
   * alike, after the same single describe()). Errors from Temporal propagate (not "unknown").
   */
  async read(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const cached = this.finished.get(taskId);
    if (cached && Date.now() > Date.parse(cached.createdAt) + cached.ttlMs) this.finished.delete(taskId);
    else if (cached && cached.owner === principal) return cached;
    return this.readFromTemporal(taskId, principal);
  }

  private async readFromTemporal(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const handle = this.client.workflow.getHandle(taskId);
    const description = await this.describe(handle);
    if (!description) return undefined;
    const memo = description.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined;
    if (!memo || memo.owner !== principal) return undefined; // not a task of ours, or not this caller's
    const running = description.status.name === 'RUNNING';
    if (!running && Date.now() > Date.parse(memo.createdAt) + memo.ttlMs) return undefined;
    const base = { taskId, tool: memo.tool, runId: description.runId, createdAt: memo.createdAt, ttlMs: memo.ttlMs, owner: memo.owner };
    if (running) {
      const progress = await this.progress(handle, description);
      const state: TaskState = progress.status === 'input_required'
        ? { status: 'input_required', inputRequests: progress.inputRequests }
        : { status: 'working' };
      return { ...base, lastUpdatedAt: progress.lastUpdatedAt, statusMessage: progress.statusMessage, state };
    }
    const state = await this.bounded(() => this.outcome(handle));
    const lastUpdatedAt = (description.closeTime ?? new Date()).toISOString();
    const statusMessage = state.status === 'failed' ? state.error.message : undefined;
    const task = { ...base, lastUpdatedAt, statusMessage, state };
    this.finished.put(task);
    return task;
  }

  /**
   * Answers pending input requests. Keys not outstanding are dropped (no history is written for
   * them); an answer that does not fit its request throws InputResponseError and nothing is sent.
   * The ack comes once Temporal has recorded the signal: no worker is needed.
   */
  async sendInput(taskId: string, principal: string | undefined, responses: Record<string, unknown>): Promise<TaskSnapshot | undefined> {
    const task = await this.read(taskId, principal);
    if (!task || task.state.status !== 'input_required') return task;
    const pending = task.state.inputRequests;
    const answers = Object.fromEntries(Object.entries(responses).filter(([key]) => key in pending));
    for (const [key, answer] of Object.entries(answers)) {
      const why = whyResponseDoesNotFit(pending[key], answer);
      if (why) throw new InputResponseError(key, why);
    }
    if (Object.keys(answers).length > 0) await this.toRunning(taskId, (h) => h.signal(inputResponsesSignal, answers));
    return task;
  }

  /**
   * The caller's most recent tasks (2025-11-25 tasks/list). Visibility lags by seconds, and the
   * owner lives in the memo (never in a search attribute), so it is filtered here.
   */
  async listOwned(principal: string | undefined, limit = 100): Promise<TaskSnapshot[]> {
    const ids: string[] = [];
    await this.bounded(async () => {
      for await (const wf of this.client.workflow.list({ query: `WorkflowId STARTS_WITH "task_"`, pageSize: 200 })) {
        if ((wf.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.owner === principal) ids.push(wf.workflowId);
        if (ids.length >= limit) break;
      }
    });
    const tasks = await Promise.all(ids.map((id) => this.read(id, principal)));
    return tasks.filter((t): t is TaskSnapshot => t !== undefined);
  }

  /** Requests cooperative cancellation; a no-op for a task that already ended. Undefined when unknown. */
  async cancel(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const task = await this.read(taskId, principal);
    if (task && !isTerminal(task)) await this.toRunning(taskId, (h) => h.cancel().then(() => undefined));
    return task;
  }

  /** Sends to a running workflow; one that closed in the meantime answers NotFound, which is fine. */
  private async toRunning(taskId: string, send: (h: WorkflowHandle) => Promise<void>): Promise<void> {
    try {
      await this.bounded(() => send(this.client.workflow.getHandle(taskId)));
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  private async describe(handle: WorkflowHandle): Promise<WorkflowExecutionDescription | undefined> {
    try {
      return await this.bounded(() => handle.describe());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * The memo is current unless a workflow task is pending (e.g. a signal not yet applied);
   * then a short query gets the fresh state, falling back to the memo when no worker answers.
   */
  private async progress(handle: WorkflowHandle, description: WorkflowExecutionDescription): Promise<TaskProgress> {
    const memo = description.memo?.[PROGRESS_MEMO_KEY] as TaskProgress | undefined;
    const fallback: TaskProgress = memo ?? { status: 'working', lastUpdatedAt: description.startTime.toISOString(), inputRequests: {} };
    if (!description.raw.pendingWorkflowTask) return fallback;
    try {
      return await this.client.withDeadline(Date.now() + this.opts.queryTimeoutMs, () => handle.query(taskProgressQuery));
    } catch {
      return fallback;
    }
  }

  private async outcome(handle: WorkflowHandle): Promise<Exclude<TaskState, { status: 'working' | 'input_required' }>> {
    try {
      return { status: 'completed', result: (await handle.result()) as CallToolResult };
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      if (err.cause instanceof CancelledFailure) return { status: 'cancelled' };
      return { status: 'failed', error: failureToError(err.cause) };
    }
  }

  private searchAttributes(tool: string): SearchAttributePair[] | undefined {
    if (!this.opts.searchAttributes) return undefined;
    return [
      { key: MCP_TOOL, value: tool },
      { key: MCP_TASK_STATUS, value: 'working' },
    ];
  }

  private bounded<R>(fn: () => Promise<R>): Promise<R> {
    return this.client.withDeadline(Date.now() + this.opts.temporalTimeoutMs, fn);
  }
}

/** A failed workflow becomes a JSON-RPC error: the tool's own, or an internal error saying why. */
function failureToError(cause: Error | undefined): JsonRpcErrorObject {
  if (cause instanceof ApplicationFailure && cause.type === MCP_PROTOCOL_ERROR) {
    const detail = (cause.details?.[0] ?? {}) as { code?: number; data?: unknown };
    return { code: detail.code ?? -32603, message: cause.message, ...(detail.data !== undefined ? { data: detail.data } : {}) };
  }
  if (cause instanceof TerminatedFailure) return { code: -32603, message: 'The task was terminated in Temporal' };
  if (cause instanceof TimeoutFailure) return { code: -32603, message: 'The task timed out in Temporal' };
  return { code: -32603, message: `The task failed: ${cause?.message ?? 'unknown error'}` };
}
