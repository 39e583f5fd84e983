/**
 * tasks/get of a task that a client polls. Each poll of a running task is a describe() in
 * Temporal: 200 tasks polled every 250 ms are 800 describes a second, which on a small cluster
 * slows the very workflows being polled. So from the second read of a running task within
 * `keepMs` whose history did not move since the read before, this replica watches it
 * (TaskWatcher: the history long-poll that subscriptions use, and one read per change) and
 * answers the caller's later reads from the watch's latest read, until no read came for
 * `keepMs`. A poll then costs Temporal nothing. A task whose history moves between polls is not
 * watched until it stands still: its watch would wake, and cost a call, about once per poll.
 *
 * The answer is what a describe() would say: a watch reads the task again at every history
 * event, and this replica's own answers and cancels make the next read go to Temporal. Served
 * from Temporal every time: tasks with an activity running (heartbeats write no event) or stuck
 * (retried workflow tasks write none), tasks asked to cancel (about to end), and any task while
 * its watch's calls fail or it has not yet read the event that woke it. Watches have
 * their own bounds, of the subscription limits' sizes: past them a task is read as before.
 */
import { performance } from 'node:perf_hooks';
import { isTerminal, type TaskSnapshot } from '../task-snapshot';
import type { TemporalTaskStore } from '../temporal-task-store';
import type { TaskRead, TaskWatch, TaskWatcher } from './task-watcher';
import { type Release, WatchLimits } from './watch-limits';
import { linkToTask } from '../trace-context';
import { metrics } from '../metrics';

interface Polled {
  readonly taskId: string;
  lastReadAt: number;
  /** The history length of the last read from Temporal. */
  historyLength?: number;
  watching?: { watch?: TaskWatch; release: Release };
}

/** What tasks/get reads a task through: PolledTasks, or the store itself (--no-watch-polled-tasks). */
export interface TaskReader {
  read(taskId: string, principal: string | undefined): Promise<TaskSnapshot | undefined>;
}

export interface PolledTasksOptions {
  /** How long a task stays watched after its last read. */
  keepMs: number;
  maxSubscribedTasks: number;
  maxSubscribedTasksPerCaller: number;
}

export class PolledTasks implements TaskReader {
  private readonly polled = new Map<string, Polled>();
  private readonly limits: WatchLimits;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<TemporalTaskStore, 'read' | 'writes'>,
    private readonly watcher: TaskWatcher,
    private readonly opts: PolledTasksOptions,
  ) {
    this.limits = new WatchLimits(opts);
    // the store's answers and cancels (store.writes): watch reads started before one are not served
    store.writes.keepFor(opts.keepMs);
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, opts.keepMs / 2));
    this.sweeper.unref();
  }

  /** Tasks watched now (tests, metrics). */
  get watched(): number {
    return this.limits.held;
  }

  /** The task as tasks/get answers it: as TemporalTaskStore.read, from a watch where one is current. */
  async read(taskId: string, principal: string | undefined): Promise<TaskSnapshot | undefined> {
    const key = `${principal ?? ''}\u0000${taskId}`;
    const entry = this.polled.get(key);
    const now = performance.now();
    if (entry) {
      entry.lastReadAt = now;
      const seen = entry.watching?.watch?.current();
      if (seen && seen.readStartedAt > (this.store.writes.lastAt(taskId) ?? -Infinity) && servable(seen.task)) {
        linkToTask(seen.task);
        metrics.taskRead('watch');
        // a running task's ttlMs counts from now: the watch's read is as old as the time since it
        return { ...seen.task, ttlMs: seen.task.ttlMs + Math.round(now - seen.readStartedAt) };
      }
    }
    const task = await this.store.read(taskId, principal);
    if (!task || isTerminal(task)) {
      this.drop(key);
      return task;
    }
    if (!entry) this.polled.set(key, { taskId, lastReadAt: now, historyLength: task.historyLength });
    else if (!entry.watching) {
      // a task whose history moved since the last read would wake a watch about as often as it is polled
      if (task.historyLength === entry.historyLength) this.watch(key, entry, principal, { task, readStartedAt: now });
      entry.historyLength = task.historyLength;
    }
    return task;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const key of [...this.polled.keys()]) this.drop(key);
  }

  /** Watches the task from `read`, this poll's own read (no second read when nothing happened since). */
  private watch(key: string, entry: Polled, principal: string | undefined, read: TaskRead): void {
    let release: Release;
    try {
      release = this.limits.reserve(principal, 1, 'polled');
    } catch {
      return; // at a bound: this task is read from Temporal, as every task was before
    }
    const watching: NonNullable<Polled['watching']> = { release };
    entry.watching = watching;
    const ended = (task: TaskSnapshot | undefined) => (!task || isTerminal(task)) && this.drop(key);
    this.watcher.watch(entry.taskId, principal, ended, read).then(
      (watch) => {
        if (entry.watching === watching && this.polled.get(key) === entry) watching.watch = watch;
        else watch.stop(); // dropped while the watch started
      },
      () => entry.watching === watching && this.drop(key), // Temporal failed: reads go to it directly
    );
  }

  /** Drops the watches nobody read for keepMs. */
  private sweep(): void {
    const before = performance.now() - this.opts.keepMs;
    for (const [key, entry] of this.polled) if (entry.lastReadAt < before) this.drop(key);
  }

  private drop(key: string): boolean {
    const entry = this.polled.get(key);
    if (!entry) return false;
    this.polled.delete(key);
    entry.watching?.watch?.stop();
    entry.watching?.release();
    entry.watching = undefined;
    return true;
  }
}

/**
 * A task whose answer changes only with a history event, which wakes its watch. A task asked to
 * cancel is about to end: its readers go to Temporal, so none reads it running after it closed.
 */
function servable(task: TaskSnapshot): boolean {
  return !task.stuck && !task.activityRunning && !task.cancelRequested;
}
