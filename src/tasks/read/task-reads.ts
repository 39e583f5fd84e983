/**
 * Reading a task: one describe() of its workflow, mapped to what tasks/get answers. A running
 * task's state comes from its progress memo, its activities' reported progress and whether it is
 * stuck; a closed one's from its end (task-outcome), then kept (finished tasks never change).
 */
import { type WorkflowExecutionDescription, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { TASK_MEMO_KEY, type TaskMemo } from '../../contract';
import { logger } from '../logging';
import type { OwnerHasher } from '../owner';
import { endOf, endStatusOf, type ToolResultSpec } from '../task-outcome';
import type { TaskSnapshot, TaskState } from '../task-snapshot';
import type { TaskWrites } from '../task-writes';
import type { TemporalCalls } from '../temporal-calls';
import { activityRunning, freshestActivityProgress, retryingActivity } from './activity-progress';
import { MissPacing } from './miss-pacing';
import { StuckTasks, STUCK_CANCEL_REASON } from './stuck-tasks';
import { readProgress } from './task-progress';
import { TerminalTaskCache } from './terminal-cache';

/** What tasks/get shows while a requested cancel is being carried out by the workflow. */
export const CANCELLING_MESSAGE = 'cancelling: the task stops and undoes the steps that took effect';

export class TaskReads {
  private readonly finished = new TerminalTaskCache();
  private readonly missPacing = new MissPacing();
  private readonly stuck: StuckTasks;

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
    else if (cached && cached.owner === owner) return cached;
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
    if (running) return this.readRunning(description, { ...base, ttlMs }, cancelRequested);
    const state = await this.calls.bounded(() => endOf(handle, description.status.name, this.tools?.get(memo.tool)));
    const statusMessage = state.status === 'failed' ? state.error.message : undefined;
    const lastUpdatedAt = new Date(closedAt ?? Date.now()).toISOString();
    const task: TaskSnapshot = { ...base, ttlMs, lastUpdatedAt, statusMessage, state, ...(cancelRequested ? { cancelRequested } : {}) };
    this.finished.put(task); // terminal snapshots never change: the next poll needs no Temporal call
    return task;
  }

  private async readRunning(
    description: WorkflowExecutionDescription,
    base: Pick<TaskSnapshot, 'taskId' | 'tool' | 'runId' | 'createdAt' | 'owner' | 'ttlMs'>,
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
    const state: TaskState =
      progress.status === 'input_required' && !cancelRequested
        ? { status: 'input_required', inputRequests: progress.inputRequests }
        : { status: 'working' };
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
