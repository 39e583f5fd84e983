/**
 * Reading a task: one describe() of its workflow, mapped to what tasks/get answers. A running
 * task's state comes from its progress memo, its activities' reported progress and whether it is
 * stuck; a closed one's from its end (task-outcome), then kept (finished tasks never change).
 */
import { type WorkflowExecutionDescription, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowSerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex, decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { tsToMs } from '@temporalio/common/lib/time';
import { PROGRESS_MEMO_KEY, TASK_MEMO_KEY, type TaskMemo } from '../../contract';
import { logger } from '../logging';
import { metrics } from '../metrics';
import type { OwnerHasher, TaskWrites, TemporalCalls } from '../store-parts';
import { completedEnd, endOf, endStatusOf, type EndState, type ToolResultSpec } from '../task-outcome';
import type { TaskSnapshot } from '../task-snapshot';
import type { HistoryEvent, HistoryWait } from '../watch/history-long-poll';
import { activityRunning, freshestActivityProgress, progressFrom, readProgress, retryingActivity, runningState } from './progress';
import { MissPacing } from './miss-pacing';
import { BoundedSet, StuckTasks, STUCK_CANCEL_REASON } from './stuck-tasks';

/** What a task is whatever its state: who started it, when, with which tool and ttl. */
type TaskBase = Pick<TaskSnapshot, 'taskId' | 'tool' | 'runId' | 'createdAt' | 'owner' | 'startTtlMs' | 'traceparent'>;

/** What tasks/get shows while a requested cancel is being carried out by the workflow. */
export const CANCELLING_MESSAGE = 'cancelling: the task stops and undoes the steps that took effect';

export class TaskReads {
  private readonly finished = new TerminalTaskCache();
  private readonly missPacing = new MissPacing();
  private readonly stuck: StuckTasks;
  /** Ends already counted (the cache may drop a task, or not keep a large one). */
  private readonly endsCounted = new BoundedSet(10_000);

  /** `tools` (by name) give results their mapping and outputSchema check; without, `auto` and no check. */
  constructor(
    private readonly calls: TemporalCalls,
    private readonly owners: OwnerHasher,
    private readonly writes: TaskWrites,
    stuckCancelGraceMs: number,
    private readonly tools?: { get(name: string): ToolResultSpec | undefined },
  ) {
    this.stuck = new StuckTasks(calls.client, calls.bounded, stuckCancelGraceMs);
  }

  /**
   * The task, or undefined when unknown, expired or owned by another principal (all answered
   * alike, after the same single describe()). Errors from Temporal propagate (not "unknown").
   */
  async read(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const owner = this.owners.hash(principal);
    const cached = this.finished.get(taskId);
    if (cached && Date.now() > Date.parse(cached.createdAt) + cached.ttlMs) this.finished.delete(taskId);
    else if (cached && cached.owner === owner) {
      metrics.taskRead('finished_cache');
      return cached;
    }
    metrics.taskRead('temporal');
    // a foreign task (cached or not) takes the path of an unknown id: one describe, then
    // undefined, answered at the same paced time (MissPacing)
    const startedAt = performance.now();
    const task = await this.readFromTemporal(taskId, owner);
    if (!task) await this.missPacing.pad(startedAt);
    return task;
  }

  private async readFromTemporal(taskId: string, owner: string | undefined): Promise<TaskSnapshot | undefined> {
    const handle = this.calls.client.workflow.getHandle(taskId);
    const description = await this.describe(handle);
    if (!description) return undefined;
    const memo = description.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined;
    if (!memo || memo.owner !== owner) return undefined; // not a task of ours, or not this caller's
    const base: TaskBase = {
      taskId,
      tool: memo.tool,
      runId: description.runId,
      createdAt: memo.createdAt,
      owner: memo.owner,
      startTtlMs: memo.ttlMs,
      ...(memo.traceparent ? { traceparent: memo.traceparent } : {}),
    };
    // a cancel requested while the task runs is not its end: the workflow still has to stop and
    // undo its steps (or may have completed first), so what is read is what Temporal says
    const cancelRequested = description.raw.workflowExtendedInfo?.cancelRequested === true;
    // not closed (running, or paused by an operator): the task goes on
    if (endStatusOf(description.status.name) === undefined)
      return this.readRunning(description, { ...base, ttlMs: runningTtlMs(base) }, cancelRequested);
    const closedAt = (description.closeTime ?? new Date()).getTime();
    if (Date.now() > Date.parse(base.createdAt) + endedTtlMs(base, closedAt)) return undefined;
    const state = await this.calls.bounded(() => endOf(handle, description.status.name, this.tools?.get(memo.tool)));
    return this.ended(base, closedAt, state, cancelRequested);
  }

  /**
   * The task as a watch that woke at `wake` would read it, from the events that woke it alone (its
   * run's completion, or a progress update), with no further call to Temporal. `last` is the
   * watch's latest read of the task, running. Undefined where the events do not say it all: the
   * watch reads the task instead.
   */
  async fromHistory(last: TaskSnapshot, wake: HistoryWait): Promise<TaskSnapshot | undefined> {
    const converter = this.calls.client.options.loadedDataConverter;
    if (converter.externalStorage) return undefined; // payloads stored outside the history
    const context: WorkflowSerializationContext = {
      type: 'workflow',
      namespace: this.calls.client.options.namespace,
      workflowId: last.taskId,
    };
    if (wake.completion) return this.completedFrom(last, wake.completion, context);
    if (!wake.progress || wake.lastEventId === undefined) return undefined;
    const task = await progressFrom(last, wake.progress, wake.lastEventId, (payload) =>
      decodeMapFromPayloads(converter, { [PROGRESS_MEMO_KEY]: payload }, context).then((memo) => memo?.[PROGRESS_MEMO_KEY]),
    );
    if (task) metrics.taskRead('history');
    return task && { ...task, ttlMs: runningTtlMs(baseOf(last)) };
  }

  /**
   * The end of a task whose run completed, from its completion event. Undefined where it does not
   * say it all: a cancel was requested (the 2025-11-25 revision reports it), the run goes on as another.
   */
  private async completedFrom(last: TaskSnapshot, event: HistoryEvent, context: WorkflowSerializationContext) {
    const completion = event.workflowExecutionCompletedEventAttributes;
    if (!completion || completion.newExecutionRunId || !event.eventTime || last.cancelRequested) return undefined;
    const value = await decodeFromPayloadsAtIndex(this.calls.client.options.loadedDataConverter, 0, completion.result?.payloads, context);
    const state = await completedEnd(value, this.tools?.get(last.tool));
    metrics.taskRead('history');
    return this.ended(baseOf(last), tsToMs(event.eventTime), state, false);
  }

  /** A closed task's snapshot, kept: terminal snapshots never change, so the next poll needs no Temporal call. */
  private ended(base: TaskBase, closedAt: number, state: EndState, cancelRequested: boolean): TaskSnapshot {
    const statusMessage = state.status === 'failed' ? state.error.message : undefined;
    const lastUpdatedAt = new Date(closedAt).toISOString();
    const ttlMs = endedTtlMs(base, closedAt);
    const task: TaskSnapshot = { ...base, ttlMs, lastUpdatedAt, statusMessage, state, ...(cancelRequested ? { cancelRequested } : {}) };
    this.countEnd(base.taskId, base.tool, state.status);
    this.finished.put(task);
    return task;
  }

  private async readRunning(
    description: WorkflowExecutionDescription,
    base: TaskBase & Pick<TaskSnapshot, 'ttlMs'>,
    cancelRequested: boolean,
  ): Promise<TaskSnapshot | undefined> {
    const progress = await readProgress(this.calls.client, this.calls.bounded, description);
    const stuckReason = await this.stuck.reason(description);
    const verdict = stuckReason && cancelRequested ? await this.stuck.cancelVerdict(description) : undefined;
    if (verdict?.terminate) return this.terminateStuck(base.taskId, base.owner);
    const stuck =
      stuckReason && verdict?.at
        ? `${stuckReason}; cancel requested: it is terminated unless it runs again by ${verdict.at.toISOString()}`
        : stuckReason;
    const state = runningState(progress, cancelRequested);
    const pending = description.raw.pendingActivities;
    const activity = await freshestActivityProgress(pending, (payloads) =>
      decodeFromPayloadsAtIndex(this.calls.client.options.loadedDataConverter, 0, payloads),
    );
    // the freshest word on the task: an activity's heartbeat newer than the workflow's own message wins
    const fromActivity = activity && !(Date.parse(activity.at) < Date.parse(progress.lastUpdatedAt)) ? activity : undefined;
    const statusMessage =
      stuck ?? (cancelRequested ? CANCELLING_MESSAGE : (fromActivity?.message ?? retryingActivity(pending) ?? progress.statusMessage));
    const lastUpdatedAt = fromActivity?.at ?? progress.lastUpdatedAt;
    return {
      ...base,
      lastUpdatedAt,
      statusMessage,
      state,
      ...(cancelRequested ? { cancelRequested } : {}),
      ...(stuck ? { stuck: true } : {}),
      ...(activityRunning(pending) ? { activityRunning: true } : {}),
      historyLength: description.historyLength,
      ...(fromActivity?.done !== undefined && statusMessage === fromActivity.message
        ? { progress: { done: fromActivity.done, ...(fromActivity.total !== undefined ? { total: fromActivity.total } : {}) } }
        : {}),
    };
  }

  /**
   * Ends a stuck task whose cancel could not run (StuckTasks.cancelVerdict) and reads it again:
   * `failed`, saying that its steps may remain.
   */
  private async terminateStuck(taskId: string, owner: string | undefined): Promise<TaskSnapshot | undefined> {
    await this.calls.toRunning(taskId, (h) => h.terminate(STUCK_CANCEL_REASON).then(() => undefined));
    logger.warn({ event: 'task.stuck.terminated', taskId }, 'a stuck task was cancelled and could not run its undos: terminated');
    this.writes.record(taskId);
    return this.readFromTemporal(taskId, owner);
  }

  private countEnd(taskId: string, tool: string, status: string): void {
    if (this.endsCounted.has(taskId)) return;
    this.endsCounted.add(taskId);
    metrics.taskEnded(tool, status);
  }

  private async describe(handle: WorkflowHandle): Promise<WorkflowExecutionDescription | undefined> {
    const startedAt = performance.now();
    try {
      const description = await this.calls.bounded(() => handle.describe());
      this.missPacing.record(performance.now() - startedAt);
      return description;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      this.missPacing.record(performance.now() - startedAt, false);
      return undefined;
    }
  }
}

/**
 * ttlMs counts from createdAt (the wire's rule): a running task stays readable for its ttl from
 * now, a finished one for its ttl after it finished (Temporal keeps it for the retention, which
 * caps the ttl).
 */
function runningTtlMs(base: TaskBase): number {
  return endedTtlMs(base, Date.now());
}

function endedTtlMs(base: TaskBase, closedAt: number): number {
  return Math.max(base.startTtlMs, closedAt - Date.parse(base.createdAt) + base.startTtlMs);
}

function baseOf(task: TaskSnapshot): TaskBase {
  const { taskId, tool, runId, createdAt, owner, startTtlMs, traceparent } = task;
  return { taskId, tool, runId, createdAt, owner, startTtlMs, ...(traceparent ? { traceparent } : {}) };
}

/**
 * Finished tasks never change, so their snapshots are kept (least recently used first out) and
 * a polled tasks/get of a finished task needs no Temporal call. Safe across replicas for the
 * same reason. Bounded by count and by bytes (every kind of entry counts, failures too); an
 * entry larger than `maxEntryBytes` is not kept.
 */
export class TerminalTaskCache {
  private readonly entries = new Map<string, { task: TaskSnapshot; bytes: number }>();
  private totalBytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxEntryBytes = 64 * 1024,
  ) {}

  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(taskId: string): TaskSnapshot | undefined {
    const hit = this.entries.get(taskId);
    if (!hit) return undefined;
    this.entries.delete(taskId); // refresh its place in the LRU order
    this.entries.set(taskId, hit);
    return hit.task;
  }

  put(task: TaskSnapshot): void {
    this.delete(task.taskId);
    const bytes = Buffer.byteLength(JSON.stringify(task));
    if (bytes > this.maxEntryBytes) return;
    this.entries.set(task.taskId, { task, bytes });
    this.totalBytes += bytes;
    while (this.entries.size > this.maxEntries || this.totalBytes > this.maxBytes) this.delete(this.entries.keys().next().value as string);
  }

  delete(taskId: string): void {
    const hit = this.entries.get(taskId);
    if (!hit) return;
    this.entries.delete(taskId);
    this.totalBytes -= hit.bytes;
  }
}
