/**
 * Everything on this replica that holds a connection open while it watches a task counts
 * against one pair of limits (--max-subscribed-tasks, --max-subscribed-tasks-per-caller):
 * each task of a 2026 subscription, each 2025 `tasks/result` stream, each held synchronous
 * `tools/call`, each bounded wait of a call from a caller without Tasks and each `task_wait`
 * / `task_respond`. Past a limit: WatchLimitError (-32603, the limit in `data`).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { metrics, type WatchKind } from '../metrics';

/**
 * -32603 for a watch past a limit: a subscribed task, a 2025 tasks/result stream or a held call
 * (the SDK's own listen router answers its limit alike); the limit and its scope in `data`.
 */
export class WatchLimitError extends ProtocolError {
  constructor(scope: 'caller' | 'server', limit: number) {
    const what = 'watched tasks (subscriptions, tasks/result streams, held calls)';
    super(ProtocolErrorCode.InternalError, `Watch limit reached: at most ${limit} ${what} per ${scope} at once`, { scope, limit });
  }
}

/** Gives back some of the places held (without an argument: all that are left). */
export type Release = (some?: number) => void;

export class WatchLimits {
  private readonly perCaller = new Map<string, number>();
  private total = 0;

  constructor(private readonly max: { maxSubscribedTasks: number; maxSubscribedTasksPerCaller: number }) {
    metrics.watchLimit(max.maxSubscribedTasks);
  }

  /** Places held now (all callers), for tests and metrics. */
  get held(): number {
    return this.total;
  }

  /** Holds n places for `caller` (undefined: unauthenticated, all such callers are one) for a `kind` of watch, or throws. */
  reserve(caller: string | undefined, n = 1, kind: WatchKind = 'bounded_wait'): Release {
    const key = caller ?? '';
    const mine = this.perCaller.get(key) ?? 0;
    if (mine + n > this.max.maxSubscribedTasksPerCaller) {
      metrics.refused('watches_per_caller');
      throw new WatchLimitError('caller', this.max.maxSubscribedTasksPerCaller);
    }
    if (this.total + n > this.max.maxSubscribedTasks) {
      metrics.refused('watches');
      throw new WatchLimitError('server', this.max.maxSubscribedTasks);
    }
    this.perCaller.set(key, mine + n);
    this.total += n;
    metrics.watchHeld(kind, n);
    let left = n;
    return (some = left) => {
      const k = Math.min(some, left);
      left -= k;
      this.total -= k;
      metrics.watchHeld(kind, -k);
      const now = (this.perCaller.get(key) ?? 0) - k;
      if (now > 0) this.perCaller.set(key, now);
      else this.perCaller.delete(key);
    };
  }

  /** Runs fn while holding one place. */
  async holding<T>(caller: string | undefined, fn: () => Promise<T>, kind?: WatchKind): Promise<T> {
    const release = this.reserve(caller, 1, kind);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
