/**
 * What the handles of a task already told a caller, so that later ones say only what changed.
 * Per replica and in memory: a wait that lands on another replica, or on a forgotten entry, gets
 * the full handle again, which is only longer. Bounded like every resource a caller can hold.
 */

/** Tasks remembered at once (per caller and task); past it the least recently told are forgotten first. */
export const MAX_SAID_HANDLES = 10_000;

export interface Said {
  status: string;
  statusMessage?: string;
  /** The question keys already shown. */
  keys: string[];
}

export class SaidHandles {
  /** Insertion order = recency: an entry told again moves to the end. */
  private readonly said = new Map<string, Said>();

  constructor(private readonly max = MAX_SAID_HANDLES) {}

  get(principal: string | undefined, taskId: string): Said | undefined {
    return this.said.get(keyOf(principal, taskId));
  }

  set(principal: string | undefined, taskId: string, said: Said): void {
    const key = keyOf(principal, taskId);
    this.said.delete(key);
    this.said.set(key, said);
    for (const oldest of this.said.keys()) {
      if (this.said.size <= this.max) break;
      this.said.delete(oldest);
    }
  }

  /** The task ended (its result was told): nothing more to remember. */
  forget(principal: string | undefined, taskId: string): void {
    this.said.delete(keyOf(principal, taskId));
  }

  get size(): number {
    return this.said.size;
  }
}

function keyOf(principal: string | undefined, taskId: string): string {
  return `${principal ?? ''}\u0000${taskId}`;
}
