import {
  Client,
  WorkflowExecutionDescription,
  WorkflowFailedError,
  WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { type Duration, SearchAttributePair } from '@temporalio/common';
import {
  type CallToolResult,
  claimedSignal,
  inputResponsesSignal,
  type JsonRpcError,
  MCP_OWNER,
  MCP_TASK_STATUS,
  MCP_TOOL,
  TASK_MEMO_KEY,
  TASK_RUNTIME_REVISION,
  type TaskMemo,
} from '../contract';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { activityRunning, freshestActivityProgress, retryingActivity } from './activity-progress';
import { OwnerHasher } from './owner';
import { isTerminal, type TaskSnapshot, type TaskState } from './task-snapshot';
import { outstandingAnswers } from './input-responses';
import { OwnedTasks, type TaskPage } from './owned-tasks';
import { readProgress } from './task-progress';
import { mintTaskId } from './task-id';
import { cancelOutcomeOf, type OrphanCancelOutcome, OrphanSweeper } from './orphan-sweeper';
import { TerminalTaskCache } from './terminal-cache';
import { ANONYMOUS_OWNER, RunningTaskQuota } from './quotas';
import { MissPacing } from './miss-pacing';
import { msToNumber } from '@temporalio/common/lib/time';
import { logger } from './logging';
import { endOf, endStatusOf, type ToolResultSpec } from './task-outcome';
import { StuckTasks, STUCK_CANCEL_REASON } from './stuck-tasks';

export { toCallToolResult, type ToolResultSpec } from './task-outcome';
export { InputResponseError } from './input-responses';
export { InvalidCursorError, type TaskPage } from './owned-tasks';

export interface TaskStoreOptions {
  taskQueue: string;
  /** How long a task stays readable after createdAt (already capped by the namespace retention). */
  ttlMs: number;
  /** Bound on every Temporal call, so an unreachable server gives an error, not a hang. */
  temporalTimeoutMs: number;
  /** History length after which long tools continue as new. */
  historyLimit: number;
  /** Whether McpTool / McpTaskStatus / McpOwner are registered in the namespace. */
  searchAttributes: boolean;
  /** Key of the owner hash (MCP_OWNER_KEY); shared by every replica. */
  ownerKey?: string;
  /** Caps on running tasks, counted in Temporal (needs the search attributes); absent or 0: none. */
  maxRunningTasksPerCaller?: number;
  maxRunningTasks?: number;
  quotaLagMs?: number;
  /** Execution timeout of a synchronous run (run()): its caller holds no handle, so nobody could reach it after a crash. */
  syncRunTimeoutMs?: number;
  /** How long a stuck task is given after its cancel request to run its undos before it is terminated (default 60 s). */
  stuckCancelGraceMs?: number;
  /** Input requests unanswered this long end the task failed (TaskMemo.answerWithinMs); default ttlMs; 0: no limit. */
  answerWithinMs?: number;
  /** The same for anonymous callers, when shorter; 0: no limit of its own. */
  anonymousAnswerWithinMs?: number;
}

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

/** All task state lives in Temporal: this is the one place that knows both vocabularies. */
export class TemporalTaskStore {
  private readonly finished = new TerminalTaskCache();
  private readonly owners: OwnerHasher;
  private readonly stuck: StuckTasks;
  private readonly owned: OwnedTasks;
  private readonly writeListeners = new Set<(taskId: string) => void>();
  /** Unacknowledged starts, cancelled if they landed. */
  readonly orphans = new OrphanSweeper((taskId) => this.cancelOrphanOnce(taskId));

  /** `tools` (by name) give results their mapping and outputSchema check; without, `auto` and no check. */
  constructor(private readonly client: Client, private opts: TaskStoreOptions, private readonly tools?: { get(name: string): ToolResultSpec | undefined }) {
    this.owners = new OwnerHasher(opts.ownerKey);
    this.owned = new OwnedTasks(client, this.owners, (fn) => this.bounded(fn), (id, principal) => this.read(id, principal));
    this.stuck = new StuckTasks(client, (fn) => this.bounded(fn), opts.stuckCancelGraceMs ?? DEFAULT_STUCK_CANCEL_GRACE_MS);
    this.quota = new RunningTaskQuota(client, {
      maxRunningTasksPerCaller: opts.maxRunningTasksPerCaller ?? 0,
      maxRunningTasks: opts.maxRunningTasks ?? 0,
      quotaLagMs: opts.quotaLagMs ?? 3_000,
    });
  }

  private readonly quota: RunningTaskQuota;
  private readonly missPacing = new MissPacing();

  /** What the namespace says (retention cap, search attributes), once it could be read. */
  setNamespaceFacts(facts: Pick<TaskStoreOptions, 'ttlMs' | 'searchAttributes'>): void {
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
    const memo: TaskMemo = {
      tool: input.tool, createdAt: new Date().toISOString(), ttlMs: this.opts.ttlMs, owner, historyLimit: this.opts.historyLimit, summary: input.summary, runtime: TASK_RUNTIME_REVISION,
      ...(input.claimWithinMs !== undefined ? { claimWithinMs: input.claimWithinMs } : {}),
      ...answerLimit(this.opts, owner),
    };
    // counted from the McpOwner search attribute: without it registered there is nothing to count
    const giveBack = this.quota.enabled && this.opts.searchAttributes ? await this.bounded(() => this.quota.admit(owner ?? ANONYMOUS_OWNER)) : undefined;
    try {
      const handle = await this.bounded(() =>
        this.client.workflow.start(input.workflowType, {
          workflowId: taskId,
          taskQueue: input.taskQueue ?? this.opts.taskQueue,
          args: [input.arguments],
          ...(input.executionTimeout !== undefined ? { workflowExecutionTimeout: input.executionTimeout } : {}),
          memo: { [TASK_MEMO_KEY]: memo },
          staticSummary: input.summary,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
          typedSearchAttributes: this.searchAttributes(input.tool, owner),
        }),
      );
      return {
        taskId, tool: input.tool, runId: handle.firstExecutionRunId, createdAt: memo.createdAt, lastUpdatedAt: memo.createdAt,
        ttlMs: memo.ttlMs, owner, state: { status: 'working' },
      };
    } catch (err) {
      giveBack?.();
      this.cancelOrphan(taskId);
      throw err;
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
      await this.bounded(() => this.client.workflow.getHandle(taskId).cancel());
      return 'cancelled';
    } catch (err) {
      return cancelOutcomeOf(err);
    }
  }

  /** Stops the orphan sweeper (the server's close). */
  close(): void {
    this.orphans.stop();
  }

  /** Tells a run started with claimWithinMs that its handle reached the caller; a run that ended already needs nothing. */
  async claim(taskId: string): Promise<void> {
    await this.toRunning(taskId, (h) => h.signal(claimedSignal));
  }

  /**
   * The synchronous path: the same durable workflow, awaited. Throws ToolProtocolError for a
   * failed one. When the caller goes away (`signal`), the workflow is cancelled: nobody could
   * read its result.
   */
  async run(input: StartTaskInput, signal?: AbortSignal): Promise<CallToolResult> {
    const { taskId } = await this.start({ ...input, executionTimeout: syncTimeout(input.executionTimeout, this.opts.syncRunTimeoutMs) });
    const handle = this.client.workflow.getHandle(taskId);
    const onAbort = () => void this.toRunning(taskId, (h) => h.cancel().then(() => undefined)).catch(() => this.cancelOrphan(taskId));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const snapshot = await this.settled(handle, input.tool);
      if (snapshot.status === 'completed') return snapshot.result;
      if (snapshot.status === 'failed') throw new ToolProtocolError(snapshot.error);
      throw new ToolProtocolError({ code: -32603, message: 'The tool was cancelled' });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The task, or undefined when unknown, expired or owned by another principal (all answered
   * alike, after the same single describe()). Errors from Temporal propagate (not "unknown").
   */
  async read(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const owner = this.owners.hash(principal);
    const cached = this.finished.get(taskId);
    if (cached && Date.now() > Date.parse(cached.createdAt) + cached.ttlMs) this.finished.delete(taskId);
    else if (cached && cached.owner === owner) return cached;
    // a foreign task (cached or not) takes the path of an unknown id: one describe, then
    // undefined, answered at the same paced time (MissPacing)
    const startedAt = performance.now();
    const task = await this.readFromTemporal(taskId, owner);
    if (!task) await this.missPacing.pad(startedAt);
    return task;
  }

  private async readFromTemporal(taskId: string, owner: string | undefined): Promise<TaskSnapshot | undefined> {
    const handle = this.client.workflow.getHandle(taskId);
    const description = await this.describe(handle);
    if (!description) return undefined;
    const memo = description.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined;
    if (!memo || memo.owner !== owner) return undefined; // not a task of ours, or not this caller's
    const base = { taskId, tool: memo.tool, runId: description.runId, createdAt: memo.createdAt, owner: memo.owner };
    // not closed (running, or paused by an operator): the task goes on
    const running = endStatusOf(description.status.name) === undefined;
    // ttlMs counts from createdAt (the wire's rule): a running task stays readable for ttlMs from
    // now, a finished one for ttlMs after it finished (Temporal keeps it for the retention, which caps ttlMs)
    const closedAt = running ? undefined : (description.closeTime ?? new Date()).getTime();
    const ttlMs = Math.max(memo.ttlMs, (closedAt ?? Date.now()) - Date.parse(memo.createdAt) + memo.ttlMs);
    if (!running && Date.now() > Date.parse(memo.createdAt) + ttlMs) return undefined;
    // a cancel requested while the task runs is not its end: the workflow still has to stop and
    // undo its steps (or may have completed first), so what is read is what Temporal says
    const cancelRequested = description.raw.workflowExtendedInfo?.cancelRequested === true;
    if (running) {
      const progress = await readProgress(this.client, (fn) => this.bounded(fn), description);
      const stuckReason = await this.stuck.reason(description);
      const verdict = stuckReason && cancelRequested ? await this.stuck.cancelVerdict(description) : undefined;
      if (verdict?.terminate) return this.terminateStuck(taskId, owner);
      const stuck = stuckReason && verdict?.at ? `${stuckReason}; cancel requested: it is terminated unless it runs again by ${verdict.at.toISOString()}` : stuckReason;
      const state: TaskState = progress.status === 'input_required' && !cancelRequested
        ? { status: 'input_required', inputRequests: progress.inputRequests }
        : { status: 'working' };
      const activity = await freshestActivityProgress(description.raw.pendingActivities, (payloads) =>
        decodeFromPayloadsAtIndex(this.client.options.loadedDataConverter, 0, payloads),
      );
      // the freshest word on the task: an activity's heartbeat newer than the workflow's own message wins
      const fromActivity = activity && !(Date.parse(activity.at) < Date.parse(progress.lastUpdatedAt)) ? activity : undefined;
      const statusMessage = stuck ?? (cancelRequested ? CANCELLING_MESSAGE : fromActivity?.message ?? retryingActivity(description.raw.pendingActivities) ?? progress.statusMessage);
      const lastUpdatedAt = fromActivity?.at ?? progress.lastUpdatedAt;
      return {
        ...base, ttlMs, lastUpdatedAt, statusMessage, state,
        ...(cancelRequested ? { cancelRequested } : {}), ...(stuck ? { stuck: true } : {}),
        ...(activityRunning(description.raw.pendingActivities) ? { activityRunning: true } : {}),
      };
    }
    const state = await this.bounded(() => endOf(handle, description.status.name, this.tools?.get(memo.tool)));
    const statusMessage = state.status === 'failed' ? state.error.message : undefined;
    return this.finish({ ...base, ttlMs, lastUpdatedAt: new Date(closedAt ?? Date.now()).toISOString(), statusMessage, state, ...(cancelRequested ? { cancelRequested } : {}) });
  }

  /**
   * Ends a stuck task whose cancel could not run (StuckTasks.cancelVerdict) and reads it again:
   * `failed`, saying that its steps may remain.
   */
  private async terminateStuck(taskId: string, owner: string | undefined): Promise<TaskSnapshot | undefined> {
    await this.toRunning(taskId, (h) => h.terminate(STUCK_CANCEL_REASON).then(() => undefined));
    logger.warn({ event: 'task.stuck.terminated', taskId }, 'a stuck task was cancelled and could not run its undos: terminated');
    this.wrote(taskId);
    return this.readFromTemporal(taskId, owner);
  }

  /** Terminal snapshots never change: kept so the next poll needs no Temporal call. */
  private finish(task: TaskSnapshot): TaskSnapshot {
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
    const answers = outstandingAnswers(taskId, task.state.inputRequests, responses);
    if (Object.keys(answers).length === 0) return task;
    const delivered = await this.toRunning(taskId, (h) => h.signal(inputResponsesSignal, answers));
    this.wrote(taskId);
    return delivered ? task : this.read(taskId, principal); // it closed meanwhile: its closed state, not the stale one
  }

  /** One page of the caller's tasks (2025-11-25 tasks/list): see OwnedTasks. */
  listOwned(principal: string, cursor?: string, pageSize = 50): Promise<TaskPage> {
    return this.owned.page(principal, cursor, pageSize);
  }

  /**
   * Requests cooperative cancellation and answers the task as it now is: cancelling (the
   * workflow stops and undoes its steps), or its end when it ended first. A stuck task gets the
   * same request: it undoes its steps if it runs again; if it still fails a grace period after
   * the request, a later read terminates it (StuckTasks.cancelVerdict). Undefined when unknown.
   * `before`: the task as the caller has just read it (then not read again).
   */
  async cancel(taskId: string, principal?: string, before?: TaskSnapshot): Promise<TaskSnapshot | undefined> {
    const task = before ?? (await this.read(taskId, principal));
    if (!task || isTerminal(task)) return task;
    // Temporal accepts a cancel request for a workflow that has just completed, and ignores it:
    // only a read after the request tells a cancelling task from one that ended first
    await this.toRunning(taskId, (h) => h.cancel().then(() => undefined));
    this.wrote(taskId);
    return this.read(taskId, principal);
  }

  /**
   * Calls `listener` after every answer or cancel this store sent to a task (a reader that keeps
   * a task's state reads it again); returns what removes it.
   */
  onWrite(listener: (taskId: string) => void): () => void {
    this.writeListeners.add(listener);
    return () => this.writeListeners.delete(listener);
  }

  private wrote(taskId: string): void {
    for (const listener of this.writeListeners) listener(taskId);
  }

  /** Sends to a running workflow; false when it closed in the meantime (Temporal answers NotFound). */
  private async toRunning(taskId: string, send: (h: WorkflowHandle) => Promise<void>): Promise<boolean> {
    try {
      await this.bounded(() => send(this.client.workflow.getHandle(taskId)));
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return false;
    }
  }

  private async describe(handle: WorkflowHandle): Promise<WorkflowExecutionDescription | undefined> {
    const startedAt = performance.now();
    try {
      const description = await this.bounded(() => handle.describe());
      this.missPacing.record(performance.now() - startedAt);
      return description;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      this.missPacing.record(performance.now() - startedAt, false);
      return undefined;
    }
  }

  /** The end of a workflow the caller awaits (the synchronous path), mapped like every reader's (endOf). */
  private async settled(handle: WorkflowHandle, tool: string): Promise<Awaited<ReturnType<typeof endOf>>> {
    await handle.result().catch((err: unknown) => {
      if (!(err instanceof WorkflowFailedError)) throw err;
    });
    const { status } = await this.bounded(() => handle.describe());
    return this.bounded(() => endOf(handle, status.name, this.tools?.get(tool)));
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

  private bounded<R>(fn: () => Promise<R>): Promise<R> {
    return this.client.withDeadline(Date.now() + this.opts.temporalTimeoutMs, fn);
  }
}

/** What tasks/get shows while a requested cancel is being carried out by the workflow. */
export const CANCELLING_MESSAGE = 'cancelling: the task stops and undoes the steps that took effect';

const DEFAULT_STUCK_CANCEL_GRACE_MS = 60_000;



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
  const limits = [opts.answerWithinMs ?? opts.ttlMs, owner === undefined ? opts.anonymousAnswerWithinMs ?? 0 : 0].filter((ms) => ms > 0);
  return limits.length === 0 ? {} : { answerWithinMs: Math.min(...limits) };
}
