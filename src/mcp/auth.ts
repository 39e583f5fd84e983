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
    // one token, two principals: whose would its tasks be? Refused rather than last-one-wins
    const seen = new Map<string, string>();
    for (const { principal, token } of pairs) {
      const other = seen.get(token);
      if (other !== undefined) throw new Error(`the same bearer token is configured twice (for "${other}" and "${principal}"): every token must be unique`);
      seen.set(token, principal);
    }
    this.entries = pairs.map(({ principal, token }) => ({ principal, digest: sha256(token) }));
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
    return new StaticTokenVerifier(pairs);
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
