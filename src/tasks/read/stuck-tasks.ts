/**
 * Stuck tasks: a workflow task that keeps failing, whatever the cause (a bug, a deploy that broke
 * determinism, a command Temporal refuses, such as a continue-as-new over the payload limit).
 * Temporal retries it for ever and no workflow code runs, so the memo stays as it was; tasks/get
 * says so. And the rule that ends a stuck task that was cancelled (docs/production.md, "Stuck
 * tasks"): read from Temporal alone, so every replica applies it alike.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { TASK_MEMO_KEY, type TaskMemo } from '../../contract';
import { logger } from '../logging';
import { metrics } from '../metrics';
import type { Bounded } from '../store-parts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Why a stuck task stopped: what tasks/get of the terminated task reads. */
export const STUCK_CANCEL_REASON =
  'cancelled while stuck: its workflow task kept failing after the cancel request, so no undo could run; steps that took effect may remain';

/** Events read back per page from a history's end. */
const PAGE = 50;

export class StuckTasks {
  /** Stuck tasks already logged by this process (one warning each), bounded. */
  private readonly warned = new BoundedSet(10_000);

  constructor(
    private readonly client: Client,
    private readonly bounded: Bounded,
    /** How long after its cancel request a stuck task is given to run its undos. */
    private readonly cancelGraceMs: number,
  ) {}

  /**
   * Why a running task makes no progress: its workflow task failed and is being retried
   * (attempt > 1) and the last workflow-task event of the history is a failure, whatever its
   * cause. A workflow task that only timed out (a worker gone) is not a failure: undefined.
   */
  async reason(description: WorkflowExecutionDescription): Promise<string | undefined> {
    const attempt = description.raw.pendingWorkflowTask?.attempt ?? 0;
    if (attempt <= 1) return undefined;
    const events = await this.lastEvents(description, (e) => !!lastWorkflowTaskEvent(e));
    const failed = events.find(lastWorkflowTaskEvent)?.workflowTaskFailedEventAttributes;
    if (!failed) return undefined;
    const failure = failed.failure?.message ?? 'unknown failure';
    if (!this.warned.has(description.workflowId)) {
      this.warned.add(description.workflowId);
      metrics.stuckSeen((description.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.tool ?? description.type);
      logger.warn(
        { event: 'task.stuck', taskId: description.workflowId, attempt, failure },
        'a task is stuck: its workflow task keeps failing; deploy a fix (or cancel the task)',
      );
    }
    return `stuck: the workflow task failed ${attempt - 1} time(s) and is retried until a fixed build runs it; last failure: ${failure}`;
  }

  /**
   * Whether a stuck task whose cancel was requested is to be terminated: a workflow task that
   * started after the cancel request failed (the workflow had the cancel in hand and could not
   * run its undos), and `cancelGraceMs` have passed since the request. Before that the task is
   * left to recover (a transient failure, a fix being deployed) and undo its steps itself.
   * When not yet: the time from which it will be (undefined when no failure after the request yet).
   */
  async cancelVerdict(description: WorkflowExecutionDescription): Promise<{ terminate: boolean; at?: Date }> {
    const events = await this.lastEvents(description, (e) => !!e.workflowExecutionCancelRequestedEventAttributes);
    const requested = events.findIndex((e) => !!e.workflowExecutionCancelRequestedEventAttributes);
    if (requested < 0) return { terminate: false };
    // newest first: everything before index `requested` came after the request
    const failedSince = events.slice(0, requested).some((e) => !!e.workflowTaskFailedEventAttributes);
    if (!failedSince) return { terminate: false };
    const at = new Date((optionalTsToDate(events[requested].eventTime)?.getTime() ?? Date.now()) + this.cancelGraceMs);
    return { terminate: Date.now() >= at.getTime(), at };
  }

  /** The history's events, newest first, back to the first one `until` accepts (or the start). */
  private async lastEvents(description: WorkflowExecutionDescription, until: (e: HistoryEvent) => boolean): Promise<HistoryEvent[]> {
    const events: HistoryEvent[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await this.bounded(() =>
        this.client.workflowService.getWorkflowExecutionHistoryReverse({
          namespace: this.client.options.namespace,
          execution: { workflowId: description.workflowId, runId: description.runId },
          maximumPageSize: PAGE,
          nextPageToken,
        }),
      );
      events.push(...(page.history?.events ?? []));
      if (events.some(until)) break;
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return events;
  }
}

/** A workflow task's last word: failed, timed out or completed. */
function lastWorkflowTaskEvent(e: HistoryEvent): boolean {
  return !!(e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes || e.workflowTaskCompletedEventAttributes);
}

/** A Set that forgets its oldest entries past `max` (insertion order). */
export class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  has(item: string): boolean {
    return this.items.has(item);
  }
  add(item: string): void {
    this.items.add(item);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value!);
  }
}
