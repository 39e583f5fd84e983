import { WorkflowNotFoundError } from '@temporalio/client';
import { logger } from '../logging';

/**
 * What one cancel attempt of an orphan learned. `unanswered`: Temporal did not answer (down, or
 * too slow); `refused`: it answered with another error, which asking again would not change.
 */
export type OrphanCancelOutcome = 'cancelled' | 'not-found' | 'unanswered' | { refused: string };

/** gRPC statuses of a call Temporal did not answer: CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE. */
const UNANSWERED_CODES = new Set([1, 2, 4, 8, 14]);

/** What a failed cancel says: NotFound, Temporal silent (no gRPC status, or one above), or a refusal. */
export function cancelOutcomeOf(err: unknown): OrphanCancelOutcome {
  if (err instanceof WorkflowNotFoundError) return 'not-found';
  // the client's ServiceError carries the gRPC status on its cause
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'number' ? e.code : e?.cause?.code;
  if (typeof code !== 'number' || UNANSWERED_CODES.has(code)) return 'unanswered';
  return { refused: (err as Error).message };
}

export interface OrphanSweeperOptions {
  /** Orphans tracked at once; past it the oldest is dropped (and logged). */
  maxTracked: number;
  /** How long an orphan is retried before it is given up. */
  watchMs: number;
  /** How long Temporal may answer NotFound before the start is taken as never landed. */
  inFlightMs: number;
  /** First delay between sweeps, and after every sweep Temporal answered. */
  minDelayMs: number;
  /** Longest delay between sweeps while Temporal does not answer. */
  maxDelayMs: number;
  /** Cancels sent at once within one sweep. */
  concurrency: number;
}

export const ORPHAN_SWEEPER_DEFAULTS: OrphanSweeperOptions = {
  maxTracked: 1_000,
  watchMs: 10 * 60_000,
  inFlightMs: 30_000,
  minDelayMs: 500,
  maxDelayMs: 10_000,
  concurrency: 8,
};

interface Orphan {
  since: number;
  notFoundSince?: number;
}

/**
 * Cancels workflows whose start was never acknowledged to the client, if they appear. One loop
 * for all of them, however many starts failed: while Temporal does not answer, each sweep asks
 * once (for the oldest) and backs off, instead of one retry loop and one timeout per failed start.
 */
export class OrphanSweeper {
  private readonly orphans = new Map<string, Orphan>(); // insertion order: oldest first
  private readonly opts: OrphanSweeperOptions;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private stopped = false;
  private delay: number;

  constructor(
    private readonly cancel: (taskId: string) => Promise<OrphanCancelOutcome>,
    opts: Partial<OrphanSweeperOptions> = {},
  ) {
    this.opts = { ...ORPHAN_SWEEPER_DEFAULTS, ...opts };
    this.delay = this.opts.minDelayMs;
  }

  /** Orphans still tracked. */
  get size(): number {
    return this.orphans.size;
  }

  /** Whether a sweep is scheduled or running (false once nothing is tracked). */
  get active(): boolean {
    return this.timer !== undefined || this.sweeping;
  }

  add(taskId: string): void {
    if (this.stopped || this.orphans.has(taskId)) return;
    if (this.orphans.size >= this.opts.maxTracked) {
      const [oldest] = this.orphans.keys();
      this.orphans.delete(oldest);
      logger.warn(
        { event: 'task.orphan.dropped', taskId: oldest, maxTracked: this.opts.maxTracked },
        'too many unacknowledged starts to watch: this one is no longer cancelled if it runs',
      );
    }
    this.orphans.set(taskId, { since: Date.now() });
    this.schedule();
  }

  /** No more sweeps; what is still tracked is logged and left. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.orphans.size > 0) {
      logger.warn(
        { event: 'task.orphan.abandoned', count: this.orphans.size, taskIds: [...this.orphans.keys()].slice(0, 20) },
        'stopping with unacknowledged starts not yet cancelled',
      );
    }
    this.orphans.clear();
  }

  private schedule(): void {
    if (this.stopped || this.timer || this.sweeping || this.orphans.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sweep();
    }, this.delay);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    this.sweeping = true;
    try {
      const now = Date.now();
      for (const [taskId, orphan] of this.orphans) {
        if (now - orphan.since > this.opts.watchMs) {
          this.orphans.delete(taskId);
          logger.warn(
            { event: 'task.orphan.given_up', taskId },
            'Temporal did not answer for the whole watch: a task whose start was never acknowledged may still run',
          );
        }
      }
      const ids = [...this.orphans.keys()];
      // the oldest first, alone: when Temporal does not answer, one call says so, not one per orphan
      const answered = ids.length > 0 && (await this.attempt(ids[0]));
      for (let i = 1; answered && i < ids.length && !this.stopped; i += this.opts.concurrency) {
        await Promise.all(ids.slice(i, i + this.opts.concurrency).map((id) => this.attempt(id)));
      }
      this.delay = answered ? this.opts.minDelayMs : Math.min(this.delay * 2, this.opts.maxDelayMs);
    } finally {
      this.sweeping = false;
      this.schedule();
    }
  }

  /** One cancel of one orphan; false when Temporal did not answer. */
  private async attempt(taskId: string): Promise<boolean> {
    const outcome = await this.cancel(taskId).catch((): OrphanCancelOutcome => 'unanswered');
    const orphan = this.orphans.get(taskId);
    if (!orphan || this.stopped) return outcome !== 'unanswered';
    if (outcome === 'cancelled') {
      this.orphans.delete(taskId);
      logger.warn({ event: 'task.orphan.cancelled', taskId }, 'cancelled a task whose start was never acknowledged to the client');
    } else if (typeof outcome === 'object') {
      this.orphans.delete(taskId);
      logger.warn(
        { event: 'task.orphan.refused', taskId, reason: outcome.refused },
        'Temporal refused to cancel a task whose start was never acknowledged',
      );
    } else if (outcome === 'not-found') {
      orphan.notFoundSince ??= Date.now();
      if (Date.now() - orphan.notFoundSince > this.opts.inFlightMs) this.orphans.delete(taskId); // it never started (or already ended)
    }
    return outcome !== 'unanswered';
  }
}
