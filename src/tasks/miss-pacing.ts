/**
 * "Not found" answers are paced so that their timing tells nothing. A foreign task and an
 * unknown id already take the same path (one describe), but Temporal answers a describe of a
 * workflow that exists more slowly than one that does not (it reads its state), so a caller
 * could still tell them apart by the clock. Every read that ends in "not found" is therefore
 * answered no sooner than the recent 95th percentile of describe latency after it began: both
 * kinds then end at the same floor, except for the slowest few percent.
 */
const WINDOW = 256;
const MIN_SAMPLES = 16;
/** A floor never above this, whatever Temporal's latency did. */
const MAX_FLOOR_MS = 1_000;

export class MissPacing {
  private readonly samples = new Float64Array(WINDOW);
  private count = 0;
  private floor = 0;
  private dirty = false;

  /** A describe's duration (found or not). */
  record(ms: number): void {
    this.samples[this.count++ % WINDOW] = ms;
    this.dirty = true;
  }

  /** The current floor, ms (0 until enough describes were seen). */
  floorMs(): number {
    if (!this.dirty) return this.floor;
    this.dirty = false;
    const n = Math.min(this.count, WINDOW);
    if (n < MIN_SAMPLES) return (this.floor = 0);
    const sorted = Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b);
    this.floor = Math.min(MAX_FLOOR_MS, sorted[Math.floor(n * 0.95)]);
    return this.floor;
  }

  /** Waits until `startedAt` (performance.now()) plus the floor. */
  async pad(startedAt: number): Promise<void> {
    const left = startedAt + this.floorMs() - performance.now();
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  }
}
