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
  MAX_ARGUMENT_BYTES,
  MCP_OWNER,
  MCP_TASK_STATUS,
  MCP_TOOL,
  PROGRESS_MEMO_KEY,
  TASK_MEMO_KEY,
  TASK_RUNTIME_REVISION,
  type TaskMemo,
  type TaskProgress,
} from '../contract';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { activityRunning, freshestActivityProgress, retryingActivity } from './activity-progress';
import { OwnerHasher } from './owner';
import { isTerminal, type TaskSnapshot, type TaskState } from './task-snapshot';
import { UncompilableSchemaError, whyResponseDoesNotFit } from './input-responses';
import { mintTaskId } from './task-id';
import { cancelOutcomeOf, type OrphanCancelOutcome, OrphanSweeper } from './orphan-sweeper';
import { TerminalTaskCache } from './terminal-cache';
import { ANONYMOUS_OWNER, RunningTaskQuota } from './quotas';
import { MissPacing } from './miss-pacing';
import { msToNumber } from '@temporalio/common/lib/time';
import { logger } from './logging';
import { endOf, type ToolResultSpec } from './task-outcome';
import { StuckTasks, STUCK_CANCEL_REASON } from './stuck-tasks';

export { toCallToolResult, type ToolResultSpec } from './task-outcome';

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

/** An answer in tasks/update that does not fit the pending request it answers. */
export class InputResponseError extends Error {
  constructor(readonly key: string, readonly reason: string) {
    super(`inputResponses.${key}: ${reason}`);
  }
}

/** A tasks/list cursor this server did not hand out. */
export class InvalidCursorError extends Error {
  constructor() {
    super('Invalid cursor');
  }
}

/** One page of a caller's tasks. */
export interface TaskPage {
  tasks: TaskSnapshot[];
  nextCursor?: string;
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
  private readonly writeListeners = new Set<(taskId: string) => void>();
  /** Unacknowledged starts, cancelled if they landed. */
  readonly orphans = new OrphanSweeper((taskId) => this.cancelOrphanOnce(taskId));

  /** `tools` (by name) give results their mapping and outputSchema check; without, `auto` and no check. */
  constructor(private readonly client: Client, private opts: TaskStoreOptions, private readonly tools?: { get(name: string): ToolResultSpec | undefined }) {
    this.owners = new OwnerHasher(opts.ownerKey);
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
    const running = description.status.name === 'RUNNING';
    // ttlMs counts from createdAt (the wire's rule): a running task stays readable for ttlMs from
    // now, a finished one for ttlMs after it finished (Temporal keeps it for the retention, which caps ttlMs)
    const closedAt = running ? undefined : (description.closeTime ?? new Date()).getTime();
    const ttlMs = Math.max(memo.ttlMs, (closedAt ?? Date.now()) - Date.parse(memo.createdAt) + memo.ttlMs);
    if (!running && Date.now() > Date.parse(memo.createdAt) + ttlMs) return undefined;
    // a cancel requested while the task runs is not its end: the workflow still has to stop and
    // undo its steps (or may have completed first), so what is read is what Temporal says
    const cancelRequested = description.raw.workflowExtendedInfo?.cancelRequested === true;
    if (running) {
      const progress = await this.progress(handle, description);
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
    const pending = task.state.inputRequests;
    // own keys only: `constructor`, `toString` or `__proto__` are in every object, outstanding in none
    const answers = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(pending, key)));
    for (const [key, answer] of Object.entries(answers)) {
      const why = checkedAnswer(taskId, key, pending[key], answer);
      if (why) throw new InputResponseError(key, why);
      // a signal is a Temporal payload: past its limit Temporal refuses it, which is the caller's doing, not an outage
      const bytes = Buffer.byteLength(JSON.stringify(answer) ?? '');
      if (bytes > MAX_ARGUMENT_BYTES) throw new InputResponseError(key, `the answer is ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of a Temporal payload`);
    }
    if (Object.keys(answers).length === 0) return task;
    const delivered = await this.toRunning(taskId, (h) => h.signal(inputResponsesSignal, answers));
    this.wrote(taskId);
    return delivered ? task : this.read(taskId, principal); // it closed meanwhile: its closed state, not the stale one
  }

  /**
   * One page of the caller's tasks (2025-11-25 tasks/list), found by the McpOwner search
   * attribute (the owner's keyed hash), so no call scans the namespace. Visibility lags by a
   * second or so; each task is then read like tasks/get, so expired ones are left out.
   */
  async listOwned(principal: string, cursor?: string, pageSize = 50): Promise<TaskPage> {
    const nextPageToken = cursor === undefined ? undefined : this.decodeCursor(cursor, principal);
    const page = await this.bounded(() =>
      this.client.workflowService.listWorkflowExecutions({
        namespace: this.client.options.namespace,
        pageSize,
        nextPageToken,
        // a continue-as-new chain is one task: its closed runs are left out, the latest run stays
        query: `${MCP_OWNER.name} = "${this.owners.hash(principal)}" AND ExecutionStatus != "ContinuedAsNew"`,
      }),
    ).catch((err: { code?: number }) => {
      if (err.code === GRPC_INVALID_ARGUMENT && cursor !== undefined) throw new InvalidCursorError();
      throw err;
    });
    const ids = (page.executions ?? []).map((e) => e.execution?.workflowId).filter((id): id is string => !!id);
    // one task that cannot be read (e.g. a payload this server cannot decode) is left out, not the page
    let failures = 0;
    const read = await Promise.all(ids.map((id) => this.read(id, principal).catch((err: Error) => {
      failures++;
      logger.warn({ event: 'tasks.list.unreadable', taskId: id, err: err.message }, 'a task on a tasks/list page could not be read: left out');
      if (failures === ids.length) throw err; // every one failed: Temporal itself, most likely
      return undefined;
    })));
    const tasks = read.filter((t): t is TaskSnapshot => t !== undefined);
    const token = page.nextPageToken;
    return { tasks, ...(token && token.length > 0 ? { nextCursor: this.encodeCursor(Buffer.from(token), principal) } : {}) };
  }

  /**
   * A cursor is Temporal's page token with a MAC over it and the caller (keyed like owners):
   * a cursor that is not ours, or another caller's, is refused at once instead of going to
   * Temporal, which waits out its deadline on a token it cannot read.
   */
  private encodeCursor(token: Buffer, principal: string): string {
    return `${token.toString('base64url')}.${this.owners.mac(Buffer.concat([Buffer.from(`${principal}\0`), token]))}`;
  }

  private decodeCursor(cursor: string, principal: string): Uint8Array {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
    if (!m) throw new InvalidCursorError();
    const token = Buffer.from(m[1], 'base64url');
    if (!this.owners.verifyMac(Buffer.concat([Buffer.from(`${principal}\0`), token]), m[2])) throw new InvalidCursorError();
    return token;
  }

  /**
   * Requests cooperative cancellation and answers the task as it now is: cancelling (the
   * workflow stops and undoes its steps), or its end when it ended first. A stuck task gets the
   * same request: it undoes its steps if it runs again; if it still fails a grace period after
   * the request, a later read terminates it (StuckTasks.cancelVerdict). Undefined when unknown.
   */
  async cancel(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const task = await this.read(taskId, principal);
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

  /**
   * The memo is current, except for answers recorded since the workflow last ran (a workflow
   * task pending, e.g. no worker yet): those are read from the end of the history and applied to
   * the memo's view, so a tasks/get right after a tasks/update sees it without asking a worker.
   */
  private async progress(handle: WorkflowHandle, description: WorkflowExecutionDescription): Promise<TaskProgress> {
    const memo = description.memo?.[PROGRESS_MEMO_KEY] as TaskProgress | undefined;
    const progress: TaskProgress = memo ?? { status: 'working', lastUpdatedAt: description.startTime.toISOString(), inputRequests: {} };
    if (!description.raw.pendingWorkflowTask || progress.status !== 'input_required') return progress;
    const answered = await this.answersNotYetApplied(handle.workflowId, description.runId, description.historyLength);
    if (answered.size === 0) return progress;
    const inputRequests = Object.fromEntries(Object.entries(progress.inputRequests).filter(([key]) => !answered.has(key)));
    return { ...progress, status: Object.keys(inputRequests).length > 0 ? 'input_required' : 'working', inputRequests };
  }

  /**
   * The keys answered by tasks/update signals the workflow had not run yet when it was described
   * (`asOf`: the history length then; a workflow task that completed since wrote a newer memo
   * than the one in hand, so its events are skipped, not taken as the end).
   */
  private async answersNotYetApplied(workflowId: string, runId: string, asOf: number): Promise<Set<string>> {
    const { history } = await this.bounded(() =>
      this.client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: this.client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: ANSWERS_PAGE,
      }),
    );
    const keys = new Set<string>();
    for (const event of history?.events ?? []) {
      if (Number(event.eventId) > asOf) continue;
      if (event.workflowTaskCompletedEventAttributes) break; // the workflow has seen everything before
      const signal = event.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName !== inputResponsesSignal.name) continue;
      const answers = await decodeFromPayloadsAtIndex<Record<string, unknown>>(this.client.options.loadedDataConverter, 0, signal.input?.payloads);
      for (const key of Object.keys(answers ?? {})) keys.add(key);
    }
    return keys;
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

/** Events read back from a history's end for answers not yet applied (a few signals at most). */
const ANSWERS_PAGE = 50;
const GRPC_INVALID_ARGUMENT = 3;


/** Why an answer does not fit its request; one whose form schema this server cannot compile passes unchecked (warned, naming the key). */
function checkedAnswer(taskId: string, key: string, request: Parameters<typeof whyResponseDoesNotFit>[0], answer: unknown): string | undefined {
  try {
    return whyResponseDoesNotFit(request, answer);
  } catch (err) {
    if (!(err instanceof UncompilableSchemaError)) throw err;
    logger.warn({ event: 'task.input.schema_uncompilable', taskId, key, err: err.message }, `the form schema of input request "${key}" cannot be compiled here: its answer goes to the workflow unchecked`);
    return undefined;
  }
}

/** A synchronous run's execution timeout: the tool's own, bounded by the server's cap for runs nobody holds a handle to. */
function syncTimeout(tool: Duration | undefined, capMs: number | undefined): Duration | undefined {
  if (capMs === undefined) return tool;
  return tool === undefined ? capMs : Math.min(msToNumber(tool), capMs);
}
