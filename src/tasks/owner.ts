import { createHmac } from 'node:crypto';

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
}
