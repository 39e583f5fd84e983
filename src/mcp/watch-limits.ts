/**
 * Everything on this replica that holds a connection open while it watches a task counts
 * against one pair of limits (--max-subscribed-tasks, --max-subscribed-tasks-per-caller):
 * each task of a 2026 subscription, each 2025 `tasks/result` stream, each held synchronous
 * `tools/call`, each bounded wait of a call from a caller without Tasks and each `task_wait`
 * / `task_respond`. Past a limit: WatchLimitError (-32603, the limit in `data`).
 */
import { WatchLimitError } from './core/errors';

/** Gives back some of the places held (without an argument: all that are left). */
export type Release = (some?: number) => void;

export class WatchLimits {
  private readonly perCaller = new Map<string, number>();
  private total = 0;

  constructor(private readonly max: { maxSubscribedTasks: number; maxSubscribedTasksPerCaller: number }) {}

  /** Places held now (all callers), for tests and metrics. */
  get held(): number {
    return this.total;
  }

  /** Holds n places for `caller` (undefined: unauthenticated, all such callers are one), or throws. */
  reserve(caller: string | undefined, n = 1): Release {
    const key = caller ?? '';
    const mine = this.perCaller.get(key) ?? 0;
    if (mine + n > this.max.maxSubscribedTasksPerCaller) throw new WatchLimitError('caller', this.max.maxSubscribedTasksPerCaller);
    if (this.total + n > this.max.maxSubscribedTasks) throw new WatchLimitError('server', this.max.maxSubscribedTasks);
    this.perCaller.set(key, mine + n);
    this.total += n;
    let left = n;
    return (some = left) => {
      const k = Math.min(some, left);
      left -= k;
      this.total -= k;
      const now = (this.perCaller.get(key) ?? 0) - k;
      if (now > 0) this.perCaller.set(key, now);
      else this.perCaller.delete(key);
    };
  }

  /** Runs fn while holding one place. */
  async holding<T>(caller: string | undefined, fn: () => Promise<T>): Promise<T> {
    const release = this.reserve(caller, 1);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
