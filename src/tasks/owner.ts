import { createHmac, timingSafeEqual } from 'node:crypto';

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
