import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { performance } from 'node:perf_hooks';
import { logger } from '../logging';
import { type HistoryCursor, type HistoryWait, waitForTaskEvent } from './history-long-poll';
import { isTerminal, type TaskSnapshot } from '../task-snapshot';
import type { TemporalTaskStore } from '../temporal-task-store';

/** Called with each new state of a task; the last call is its terminal state, or undefined once it is gone. */
export type TaskListener = (task: TaskSnapshot | undefined) => void;

/** A read of the task its caller just made (TemporalTaskStore.read), and when it started (performance.now()). */
export interface TaskRead {
  task: TaskSnapshot;
  readStartedAt: number;
}

export interface TaskWatch {
  /** The task as it is now; undefined when it is unknown, expired or another caller's (then nothing is watched). */
  initial: TaskSnapshot | undefined;
  /** Stops listening; the Temporal long-poll ends with its last listener. */
  stop(): void;
  /**
   * The watch's latest read of the task and when that read started (performance.now()), while
   * the watch follows the task; undefined once it ended, or while its Temporal calls fail.
   */
  current(): TaskRead | undefined;
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
/**
 * While an activity runs or retries, or the task is stuck, how often a watch re-reads the task:
 * heartbeats (an activity's reported progress), activity retries and repeated workflow-task
 * failures write no history event, so the long-poll never wakes for them (and a stuck task's
 * cancel is decided by reads). Cost: one describe() per watched task (shared by all its streams)
 * per interval, only then; progress reaches Temporal at most every 80% of the activity's
 * heartbeatTimeout anyway, so a shorter interval would mostly re-read the same details.
 */
export const ACTIVITY_PROGRESS_POLL_MS = 2_000;

/**
 * Push instead of poll: follows tasks through Temporal's history long-poll and tells listeners
 * when what tasks/get would answer changes. Listeners of the same task (and caller) share one
 * long-poll, so a replica costs Temporal one open call per task it watches, whatever the number
 * of streams, and nothing while the task is idle.
 */
export class TaskWatcher {
  private readonly watches = new Map<string, SharedWatch>();

  /** `temporalTimeoutMs` bounds each call that is not a long-poll, as in the store. */
  constructor(
    private readonly client: Client,
    private readonly store: TemporalTaskStore,
    private readonly temporalTimeoutMs: number,
    private readonly activityPollMs = ACTIVITY_PROGRESS_POLL_MS,
  ) {}

  /**
   * `seed`: the caller's own read of the task, just made. A new watch starts from it, with no
   * read of its own, when its catch-up finds the history as long as that read did (nothing
   * happened in between).
   */
  async watch(taskId: string, principal: string | undefined, listener: TaskListener, seed?: TaskRead): Promise<TaskWatch> {
    const key = `${principal ?? ''}\u0000${taskId}`;
    let shared = this.watches.get(key);
    if (!shared) {
      shared = new SharedWatch(
        { client: this.client, store: this.store, timeoutMs: this.temporalTimeoutMs, activityPollMs: this.activityPollMs },
        taskId,
        principal,
        () => this.watches.delete(key),
        seed,
      );
      this.watches.set(key, shared);
    }
    return shared.add(listener);
  }

  stopAll(): void {
    for (const shared of this.watches.values()) shared.close();
  }
}

class SharedWatch {
  private readonly listeners = new Set<TaskListener>();
  private readonly abort = new AbortController();
  private readonly started: Promise<TaskSnapshot | undefined>;
  private last: TaskSnapshot | undefined;
  private lastReadStartedAt = 0;
  private failing = false;
  /** The history moved past what was read last: not current until the read that follows. */
  private behind = false;
  private closed = false;

  constructor(
    private readonly temporal: { client: Client; store: TemporalTaskStore; timeoutMs: number; activityPollMs: number },
    private readonly taskId: string,
    private readonly principal: string | undefined,
    private readonly onClose: () => void,
    seed?: TaskRead,
  ) {
    this.started = this.start(seed);
  }

  async add(listener: TaskListener): Promise<TaskWatch> {
    let initial: TaskSnapshot | undefined;
    try {
      initial = await this.started;
    } catch (err) {
      this.close();
      throw err;
    }
    if (!initial || this.closed) return { initial: this.last ?? initial, stop: () => undefined, current: () => undefined };
    this.listeners.add(listener);
    return { initial: this.last, stop: () => this.remove(listener), current: () => this.current() };
  }

  private current(): TaskRead | undefined {
    return this.closed || this.failing || this.behind || !this.last
      ? undefined
      : { task: this.last, readStartedAt: this.lastReadStartedAt };
  }

  /** Reads the task; after a wake, from the events that woke it where they say it all (no Temporal call). */
  private async read(wake?: HistoryWait): Promise<TaskSnapshot | undefined> {
    const known = wake && this.last ? await this.temporal.store.fromHistory(this.last, wake) : undefined;
    const startedAt = known ? wake!.polledAt : performance.now();
    const task = known ?? (await this.temporal.store.read(this.taskId, this.principal));
    this.lastReadStartedAt = startedAt;
    this.failing = false;
    this.behind = false;
    return task;
  }

  /**
   * Catch up with the history first, then read: a change in between is then seen by the
   * long-poll. A seed read before a catch-up that found no event past it is as current as a read.
   */
  private async start(seed?: TaskRead): Promise<TaskSnapshot | undefined> {
    let caughtUp: HistoryWait;
    try {
      caughtUp = await this.wait({ workflowId: this.taskId });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return this.end(undefined);
      throw err;
    }
    const { cursor } = caughtUp;
    if (seed && seed.task.historyLength !== undefined && seed.task.historyLength === caughtUp.lastEventId) {
      this.last = seed.task;
      this.lastReadStartedAt = seed.readStartedAt;
    } else this.last = await this.read();
    if (!this.last || isTerminal(this.last)) return this.end(this.last);
    void this.follow(cursor);
    return this.last;
  }

  private async follow(cursor: HistoryCursor): Promise<void> {
    // the long-poll in flight: kept across the interval re-reads of a running activity, not restarted
    let waiting: Promise<HistoryWait> | undefined;
    for (let retry = RETRY_MIN_MS; !this.closed;) {
      let reading = false;
      try {
        if (!waiting) {
          waiting = this.wait(cursor);
          waiting.catch(() => undefined); // awaited below, or abandoned by close()
        }
        // after a failed call, read at once (the long-poll is issued again meanwhile): until then the watch is not current
        const woke = this.failing
          ? undefined
          : this.last?.activityRunning || this.last?.stuck
            ? await Promise.race([waiting, this.pause(this.temporal.activityPollMs)])
            : await waiting;
        if (woke) {
          this.behind = true; // e.g. the close event: answering the read before it would be behind Temporal
          cursor = woke.cursor;
          waiting = undefined;
        }
        if (this.closed) return;
        reading = true;
        const task = await this.read(woke);
        retry = RETRY_MIN_MS;
        if (!task || isTerminal(task)) return void this.end(task, true);
        if (changed(this.last, task)) this.deliver(task);
        else this.last = task; // keeps activityRunning current
      } catch (err) {
        this.failing = true; // what it read last may be behind: its readers go to Temporal until a read succeeds
        if (!reading) waiting = undefined; // the long-poll failed; a failed read leaves the one in flight running
        if (this.closed) return;
        if (err instanceof WorkflowNotFoundError) return void this.end(undefined, true);
        logger.warn(
          { event: 'task.watch.retry', taskId: this.taskId, err: (err as Error).message },
          'watching a task: Temporal call failed, retrying',
        );
        await new Promise((r) => setTimeout(r, retry).unref());
        retry = Math.min(retry * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Resolves (to undefined) after `ms`, or at once when the watch closes. */
  private pause(ms: number): Promise<undefined> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.abort.signal.removeEventListener('abort', done);
        resolve(undefined);
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  private wait(cursor: HistoryCursor) {
    return waitForTaskEvent(this.temporal.client, cursor, this.abort.signal, this.temporal.timeoutMs);
  }

  private deliver(task: TaskSnapshot | undefined): void {
    this.last = task;
    for (const listener of [...this.listeners]) listener(task);
  }

  private end(task: TaskSnapshot | undefined, notify = false): TaskSnapshot | undefined {
    if (notify) this.deliver(task);
    this.close();
    return task;
  }

  private remove(listener: TaskListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.abort.abort();
    this.onClose();
  }
}

/** What a notification is sent for: status, statusMessage or the pending input requests. */
function changed(before: TaskSnapshot | undefined, after: TaskSnapshot): boolean {
  if (!before || before.state.status !== after.state.status || before.statusMessage !== after.statusMessage) return true;
  const pending = (t: TaskSnapshot) => (t.state.status === 'input_required' ? JSON.stringify(t.state.inputRequests) : '');
  return pending(before) !== pending(after);
}
