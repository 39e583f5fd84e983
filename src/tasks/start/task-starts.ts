/**
 * Starting tasks: the workflow start (admitted by the running-task quotas), the claim that a
 * handle reached its caller, the synchronous run, and the cancel of starts nobody acknowledged.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Duration, SearchAttributePair } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  type CallToolResult,
  claimedSignal,
  type JsonRpcError,
  MCP_OWNER,
  MCP_TASK_STATUS,
  MCP_TOOL,
  TASK_MEMO_KEY,
  TASK_RUNTIME_REVISION,
  type TaskMemo,
} from '../../contract';
import { ANONYMOUS_OWNER, RunningTaskQuota } from '../list/quotas';
import type { NamespaceFacts, TaskStoreOptions } from '../store-options';
import { mintTaskId, type OwnerHasher, type TemporalCalls } from '../store-parts';
import { endOf, type ToolResultSpec } from '../task-outcome';
import type { TaskSnapshot } from '../task-snapshot';
import { activeTraceparent, traceIdOf } from '../trace-context';
import { metrics } from '../metrics';
import { cancelOutcomeOf, type OrphanCancelOutcome, OrphanSweeper } from './orphan-sweeper';

export interface StartTaskInput {
  tool: string;
  workflowType: string;
  arguments: Record<string, unknown>;
  owner?: string;
  summary: string;
  /** The tool's own task queue (a workflow run by other workers); default: the server's. */
  taskQueue?: string;
  /** Temporal's workflow execution timeout. */
  executionTimeout?: Duration;
  /** The run cancels itself unless claim() reaches it within this many ms (its caller gets a handle only after a bounded wait). */
  claimWithinMs?: number;
}

/** A JSON-RPC error raised by a tool's workflow; the sync path answers it as such. */
export class ToolProtocolError extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
  }
}

export class TaskStarts {
  private readonly quota: RunningTaskQuota;
  /** Unacknowledged starts, cancelled if they landed. */
  readonly orphans = new OrphanSweeper((taskId) => this.cancelOrphanOnce(taskId));

  constructor(
    private readonly calls: TemporalCalls,
    private readonly owners: OwnerHasher,
    private opts: TaskStoreOptions,
    private readonly tools?: { get(name: string): ToolResultSpec | undefined },
  ) {
    this.quota = new RunningTaskQuota(calls.client, {
      maxRunningTasksPerCaller: opts.maxRunningTasksPerCaller ?? 0,
      maxRunningTasks: opts.maxRunningTasks ?? 0,
      quotaLagMs: opts.quotaLagMs ?? 3_000,
    });
  }

  setNamespaceFacts(facts: NamespaceFacts): void {
    this.opts = { ...this.opts, ...facts };
  }

  /**
   * Starts the workflow; resolves only once Temporal has acknowledged (persisted) the start.
   * A start whose answer never came may still land: it is cancelled once Temporal answers again,
   * so no task runs that nobody can reach.
   */
  async start(input: StartTaskInput): Promise<TaskSnapshot> {
    const taskId = mintTaskId();
    const owner = this.owners.hash(input.owner);
    const traceparent = activeTraceparent();
    const memo: TaskMemo = {
      tool: input.tool,
      createdAt: new Date().toISOString(),
      ttlMs: this.opts.ttlMs,
      owner,
      historyLimit: this.opts.historyLimit,
      summary: input.summary,
      runtime: TASK_RUNTIME_REVISION,
      ...(input.claimWithinMs !== undefined ? { claimWithinMs: input.claimWithinMs } : {}),
      ...answerLimit(this.opts, owner),
      ...(traceparent ? { traceparent } : {}),
    };
    // counted from the McpOwner search attribute: without it registered there is nothing to count
    const counted = this.quota.enabled && this.opts.searchAttributes;
    const giveBack = counted ? await this.calls.bounded(() => this.quota.admit(owner ?? ANONYMOUS_OWNER)) : undefined;
    try {
      const handle = await this.calls.bounded(() =>
        this.calls.client.workflow.start(input.workflowType, {
          workflowId: taskId,
          taskQueue: input.taskQueue ?? this.opts.taskQueue,
          args: [input.arguments],
          ...(input.executionTimeout !== undefined ? { workflowExecutionTimeout: input.executionTimeout } : {}),
          memo: { [TASK_MEMO_KEY]: memo },
          staticSummary: input.summary,
          // the Temporal UI's details name the trace to look up
          ...(traceparent ? { staticDetails: `trace ${traceIdOf(traceparent)}` } : {}),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
          typedSearchAttributes: this.searchAttributes(input.tool, owner),
        }),
      );
      metrics.taskStarted(input.tool);
      return {
        taskId,
        tool: input.tool,
        runId: handle.firstExecutionRunId,
        createdAt: memo.createdAt,
        lastUpdatedAt: memo.createdAt,
        ttlMs: memo.ttlMs,
        startTtlMs: memo.ttlMs,
        owner,
        state: { status: 'working' },
        ...(traceparent ? { traceparent } : {}),
      };
    } catch (err) {
      giveBack?.();
      this.cancelOrphan(taskId);
      throw err;
    }
  }

  /** Tells a run started with claimWithinMs that its handle reached the caller; a run that ended already needs nothing. */
  async claim(taskId: string): Promise<void> {
    await this.calls.toRunning(taskId, (h) => h.signal(claimedSignal));
  }

  /**
   * The synchronous path: the same durable workflow, awaited. Throws ToolProtocolError for a
   * failed one. When the caller goes away (`signal`), the workflow is cancelled: nobody could
   * read its result; unless `follow.started` told the caller its taskId (progress named it), then
   * the wait ends and the run goes on.
   */
  async run(input: StartTaskInput, signal?: AbortSignal, follow?: RunFollow): Promise<CallToolResult> {
    const { taskId } = await this.start({ ...input, executionTimeout: syncTimeout(input.executionTimeout, this.opts.syncRunTimeoutMs) });
    follow?.started(taskId);
    const handle = this.calls.client.workflow.getHandle(taskId);
    const cancel = () => void this.calls.toRunning(taskId, (h) => h.cancel().then(() => undefined)).catch(() => this.cancelOrphan(taskId));
    const left = new AbortController();
    const onAbort = follow ? () => left.abort() : cancel;
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const snapshot = await Promise.race([this.settled(handle, input.tool), aborted(left.signal)]);
      metrics.taskEnded(input.tool, snapshot.status);
      if (snapshot.status === 'completed') return snapshot.result;
      if (snapshot.status === 'failed') throw new ToolProtocolError(snapshot.error);
      throw new ToolProtocolError({ code: -32603, message: 'The tool was cancelled' });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Cancels a workflow whose start was not acknowledged, if it appears: one shared sweeper
   * retries every such task until Temporal answers, and watches a little longer in case the
   * start request was still in flight.
   */
  private cancelOrphan(taskId: string): void {
    this.orphans.add(taskId);
  }

  private async cancelOrphanOnce(taskId: string): Promise<OrphanCancelOutcome> {
    try {
      await this.calls.bounded(() => this.calls.client.workflow.getHandle(taskId).cancel());
      return 'cancelled';
    } catch (err) {
      return cancelOutcomeOf(err);
    }
  }

  /** The end of a workflow the caller awaits (the synchronous path), mapped like every reader's (endOf). */
  private async settled(handle: WorkflowHandle, tool: string): Promise<Awaited<ReturnType<typeof endOf>>> {
    await handle.result().catch((err: unknown) => {
      if (!(err instanceof WorkflowFailedError)) throw err;
    });
    const { status } = await this.calls.bounded(() => handle.describe());
    return this.calls.bounded(() => endOf(handle, status.name, this.tools?.get(tool)));
  }

  private searchAttributes(tool: string, owner: string | undefined): SearchAttributePair[] | undefined {
    if (!this.opts.searchAttributes) return undefined;
    return [
      { key: MCP_TOOL, value: tool },
      { key: MCP_TASK_STATUS, value: 'working' },
      // every task has one, so quotas count callers without authentication (one caller) too
      { key: MCP_OWNER, value: owner ?? ANONYMOUS_OWNER },
    ];
  }
}

/** A synchronous run its caller follows by its taskId (progress notifications name it): told the taskId once started. */
export interface RunFollow {
  started(taskId: string): void;
}

/** Rejects once `signal` aborts (the caller left a run that goes on). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('The request was cancelled')), { once: true }));
}

/** A synchronous run's execution timeout: the tool's own, bounded by the server's cap for runs nobody holds a handle to. */
function syncTimeout(tool: Duration | undefined, capMs: number | undefined): Duration | undefined {
  if (capMs === undefined) return tool;
  return tool === undefined ? capMs : Math.min(msToNumber(tool), capMs);
}

/**
 * How long the task's input requests may wait unanswered (TaskMemo.answerWithinMs): the ttl, or
 * the anonymous limit when shorter. Without authentication anyone may have started a question
 * nobody will answer, and every anonymous caller shares one running-task cap.
 */
function answerLimit(opts: TaskStoreOptions, owner: string | undefined): Pick<TaskMemo, 'answerWithinMs'> {
  const limits = [opts.answerWithinMs ?? opts.ttlMs, owner === undefined ? (opts.anonymousAnswerWithinMs ?? 0) : 0].filter((ms) => ms > 0);
  return limits.length === 0 ? {} : { answerWithinMs: Math.min(...limits) };
}
