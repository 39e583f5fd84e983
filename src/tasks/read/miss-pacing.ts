import { performance } from 'node:perf_hooks';

/**
 * "Not found" answers are paced so that their timing tells nothing. A foreign task and an
 * unknown id already take the same path (one describe), but the two kinds of describe do not take
 * the same time: Temporal reads the state of a workflow that exists, and the client raises an
 * error for one that does not; which is slower depends on the deployment. Every read that ends
 * in "not found" is therefore answered no sooner than the recent 95th percentile of the slower
 * kind: both kinds then end at the same floor, except for the slowest few percent.
 */
const WINDOW = 256;
const MIN_SAMPLES = 16;
/** A floor never above this, whatever Temporal's latency did. */
const MAX_FLOOR_MS = 1_000;

/** The last WINDOW durations and their 95th percentile. */
class LatencyWindow {
  private readonly samples = new Float64Array(WINDOW);
  private count = 0;
  private p95?: number;

  add(ms: number): void {
    this.samples[this.count++ % WINDOW] = ms;
    this.p95 = undefined;
  }

  /** The 95th percentile, or undefined with fewer than MIN_SAMPLES. */
  percentile95(): number | undefined {
    const n = Math.min(this.count, WINDOW);
    if (n < MIN_SAMPLES) return undefined;
    this.p95 ??= Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b)[Math.floor(n * 0.95)];
    return this.p95;
  }
}

export class MissPacing {
  private readonly found = new LatencyWindow();
  private readonly missed = new LatencyWindow();
  private readonly all = new LatencyWindow();

  /** A describe's duration; `found`: it found a workflow (a foreign task's answer takes one of these). */
  record(ms: number, found = true): void {
    this.all.add(ms);
    (found ? this.found : this.missed).add(ms);
  }

  /**
   * The current floor, ms (0 until enough describes were seen): the slower kind's 95th
   * percentile once a kind has enough samples of its own; all describes' until then.
   */
  floorMs(): number {
    const kinds = [this.found.percentile95(), this.missed.percentile95()].filter((p) => p !== undefined);
    return Math.min(MAX_FLOOR_MS, kinds.length ? Math.max(...kinds) : (this.all.percentile95() ?? 0));
  }

  /** Waits until `startedAt` (performance.now()) plus the floor. */
  async pad(startedAt: number): Promise<void> {
    const left = startedAt + this.floorMs() - performance.now();
    if (left > 0) await new Promise((r) => setTimeout(r, Math.ceil(left))); // a timer rounds fractions down
  }
}
