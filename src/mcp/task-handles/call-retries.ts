/**
 * Retries of a call that never got its answer (a client's timeout, a dropped connection): the
 * same caller calling the same tool with the same arguments within the grace period attaches to
 * the task the earlier call started instead of starting another. Once a call was answered (its
 * result or a handle), the same call again is a new call. In memory, per replica: a
 * retry that lands on another replica starts a task of its own, and the first one, unclaimed,
 * ends after the grace (the claim guard) unless it completed first.
 */
import { createHash } from 'node:crypto';

/** Calls remembered at once; past it the oldest are forgotten first (a retry of those starts anew). */
const MAX_REMEMBERED = 10_000;

export interface RetryableCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** The principal, or undefined: without authentication every caller is one, as for quotas. */
  owner?: string;
}

export class CallRetries {
  /** key -> the task the first call started and until when a retry may attach (insertion order = age). */
  private readonly calls = new Map<string, { taskId: string; until: number }>();

  constructor(private readonly graceMs: number) {}

  get enabled(): boolean {
    return this.graceMs > 0;
  }

  /** The task an earlier identical call started within the grace period, if any. */
  earlier(call: RetryableCall): string | undefined {
    const key = keyOf(call);
    const found = this.calls.get(key);
    if (found && found.until > Date.now()) return found.taskId;
    if (found) this.calls.delete(key);
    return undefined;
  }

  /** An answer (a result or a handle) went to a call for `taskId`: a later identical call is a new call, not a retry. */
  answered(call: RetryableCall, taskId: string): void {
    const key = keyOf(call);
    if (this.calls.get(key)?.taskId === taskId) this.calls.delete(key);
  }

  /** The first call started `taskId`: retries attach to it until the grace period after this start ends (not extended by retries). */
  started(call: RetryableCall, taskId: string): void {
    const now = Date.now();
    for (const [key, entry] of this.calls) {
      if (this.calls.size < MAX_REMEMBERED && entry.until > now) break;
      this.calls.delete(key);
    }
    this.calls.set(keyOf(call), { taskId, until: now + this.graceMs });
  }
}

/** One digest of caller, tool and arguments (keys sorted at every depth, so their order does not matter). */
function keyOf({ tool, arguments: args, owner }: RetryableCall): string {
  return createHash('sha256')
    .update(JSON.stringify([owner ?? null, tool, canonical(args)]))
    .digest('base64url');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  );
}
