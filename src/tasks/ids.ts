/**
 * The two identifiers the store writes into Temporal: a task's id (its workflow id) and its
 * owner's hash (the McpOwner search attribute and memo).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { TASK_ID_PREFIX } from '../contract';

/** A taskId is a bearer secret: 192 random bits, URL-safe, with a fixed prefix. It IS the workflow id. */
const TASK_ID_PATTERN = new RegExp(`^${TASK_ID_PREFIX}[A-Za-z0-9_-]{32}$`);

export function mintTaskId(): string {
  return TASK_ID_PREFIX + randomBytes(24).toString('base64url');
}

/** Checked before Temporal is touched: a malformed id is answered as unknown without a call. */
export function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && TASK_ID_PATTERN.test(value);
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
