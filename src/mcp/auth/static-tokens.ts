import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';

/** Far enough ahead for the SDK's check that every token has an expiry. */
const STATIC_TOKEN_EXPIRY_S = 4_102_444_800; // 2100-01-01

/**
 * Static bearer tokens for self-hosting: `principal:token` pairs, one per line (a file) or
 * comma-separated (an env var). Tokens are compared by their SHA-256, in constant time.
 */
export class StaticTokenVerifier implements OAuthTokenVerifier {
  private readonly entries: Array<{ principal: string; digest: Buffer }>;

  constructor(pairs: Array<{ principal: string; token: string }>) {
    if (pairs.length === 0) throw new Error('no bearer tokens configured');
    this.entries = pairs.map(({ principal, token }) => ({ principal, digest: sha256(token) }));
    // one token for two principals would make tasks' owner depend on the entry order: refuse it
    const owners = new Map<string, string>();
    for (const { principal, digest } of this.entries) {
      const other = owners.get(digest.toString('hex'));
      if (other !== undefined && other !== principal)
        throw new Error(`the same bearer token is given to two principals (${other} and ${principal})`);
      owners.set(digest.toString('hex'), principal);
    }
  }

  static parse(text: string, source: string): StaticTokenVerifier {
    const pairs = text
      .split(/[\n,]/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line, i) => {
        const at = line.indexOf(':');
        if (at <= 0 || at === line.length - 1) throw new Error(`${source}: entry ${i + 1} is not "principal:token"`);
        return { principal: line.slice(0, at), token: line.slice(at + 1) };
      });
    try {
      return new StaticTokenVerifier(pairs);
    } catch (err) {
      throw new Error(`${source}: ${(err as Error).message}`);
    }
  }

  static fromFile(file: string): StaticTokenVerifier {
    return StaticTokenVerifier.parse(fs.readFileSync(file, 'utf8'), file);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const digest = sha256(token);
    let principal: string | undefined;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, digest)) principal = entry.principal; // no early exit
    if (!principal) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown bearer token');
    return { token, clientId: principal, scopes: [], expiresAt: STATIC_TOKEN_EXPIRY_S };
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
