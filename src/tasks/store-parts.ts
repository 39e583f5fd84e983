/**
 * What the store hands its jobs (start/, read/, list/): bounded calls to Temporal, the two
 * identifiers it writes (a task's id, its owner's hash) and the record of its own writes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { TASK_ID_PREFIX } from '../contract';
import { grpcCodeOf, metrics } from './metrics';

/** A taskId is a bearer secret: 192 random bits, URL-safe, with a fixed prefix. It IS the workflow id. */
const TASK_ID_PATTERN = new RegExp(`^${TASK_ID_PREFIX}[A-Za-z0-9_-]{32}$`);

export function mintTaskId(): string {
  return TASK_ID_PREFIX + randomBytes(24).toString('base64url');
}

/** Checked before Temporal is touched: a malformed id is answered as unknown without a call. */
export function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && TASK_ID_PATTERN.test(value);
}

/** A call to Temporal bounded in time, so an unreachable server gives an error, not a hang. */
export type Bounded = <R>(fn: () => Promise<R>) => Promise<R>;

/** What every part of the store calls Temporal through. */
export class TemporalCalls {
  constructor(
    readonly client: Client,
    private readonly timeoutMs: number,
  ) {}

  readonly bounded: Bounded = async (fn) => {
    const startedAt = performance.now();
    try {
      const result = await this.client.withDeadline(Date.now() + this.timeoutMs, fn);
      metrics.temporalCall((performance.now() - startedAt) / 1000);
      return result;
    } catch (err) {
      metrics.temporalCall((performance.now() - startedAt) / 1000, grpcCodeOf(err));
      throw err;
    }
  };

  /** Sends to a running workflow; false when it closed in the meantime (Temporal answers NotFound). */
  async toRunning(taskId: string, send: (h: WorkflowHandle) => Promise<void>): Promise<boolean> {
    try {
      await this.bounded(() => send(this.client.workflow.getHandle(taskId)));
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return false;
    }
  }
}

/**
 * Who owns a task, as Temporal stores it: a keyed one-way hash of the principal, never the
 * principal itself (memo and search attributes are not encrypted). Equal principals give equal
 * hashes on every replica that shares the key, so ownership is compared without the secret.
 */
export class OwnerHasher {
  private readonly key: Buffer;

  /** `key` is MCP_OWNER_KEY; without one the hash is still one-way but not keyed (warned at start). */
  constructor(key: string | undefined) {
    this.key = Buffer.from(key ?? 'mcp-temporal-tasks/unkeyed-owner-hash');
  }

  hash(principal: string | undefined): string | undefined {
    if (principal === undefined) return undefined;
    return 'o1_' + createHmac('sha256', this.key).update(principal).digest('base64url');
  }

  /** A MAC of data under the same key (e.g. for tasks/list cursors). */
  mac(data: Buffer): string {
    return createHmac('sha256', this.key).update('cursor\0').update(data).digest('base64url').slice(0, 22);
  }

  verifyMac(data: Buffer, mac: string): boolean {
    const want = Buffer.from(this.mac(data));
    const got = Buffer.from(mac);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

/**
 * When this replica last answered, cancelled or terminated each task (performance.now()). The
 * store records here; a reader that keeps a task's state (PolledTasks) looks here, and does not
 * serve a read that started before the task's last write. The store knows no reader: calls go
 * one way. A write is a history event, so a watch reads the task again within the `keepMs` its
 * reader asked for: older writes are dropped, and without such a reader nothing is kept.
 */
export class TaskWrites {
  /** In time order: a task written again moves to the end. */
  private readonly at = new Map<string, number>();
  private keepMs = 0;

  /** Keeps each write at least `ms` (the longest any reader asked for). */
  keepFor(ms: number): void {
    this.keepMs = Math.max(this.keepMs, ms);
  }

  record(taskId: string): void {
    if (this.keepMs === 0) return;
    const now = performance.now();
    this.at.delete(taskId);
    this.at.set(taskId, now);
    for (const [id, at] of this.at) {
      if (at >= now - this.keepMs) break;
      this.at.delete(id);
    }
  }

  /** When this replica last wrote to the task, or undefined. */
  lastAt(taskId: string): number | undefined {
    return this.at.get(taskId);
  }
}
