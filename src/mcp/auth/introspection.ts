import type { AuthInfo } from '@modelcontextprotocol/server';
import { createHash } from 'node:crypto';
import { authInfoFrom } from './claims';
import { AuthServerUnavailableError, InvalidTokenError } from './errors';
import { fetchJson } from './http-fetch';
import type { Expected } from './jwt-verifier';
import type { OAuthSettings } from './oauth-config';

export interface IntrospectionOptions {
  settings: OAuthSettings;
  /** The introspection endpoint (configured or discovered); undefined when the issuer has none. */
  endpoint: () => Promise<string | undefined>;
}

/**
 * Opaque tokens by RFC 7662 introspection, authenticated as this resource server's own client.
 * Answers are kept briefly (never past the token's `exp`) in a cache bounded in size, keyed
 * by the token's SHA-256 (the cache does not hold tokens). Only active answers are kept.
 */
export class IntrospectionVerifier {
  private readonly cache = new Map<string, { until: number; info: Omit<AuthInfo, 'token'> }>();

  constructor(private readonly opts: IntrospectionOptions) {}

  async verify(token: string, expect: Expected): Promise<AuthInfo> {
    // the expected resource is part of the key: one answer is never reused for another resource
    const key = createHash('sha256').update(`${expect.resource.href}\n${token}`).digest('base64url');
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return { ...hit.info, token };
    if (hit) this.cache.delete(key);
    const info = await this.introspect(token, expect);
    this.remember(key, info);
    return info;
  }

  private async introspect(token: string, expect: Expected): Promise<AuthInfo> {
    const { settings } = this.opts;
    const endpoint = await this.opts.endpoint();
    if (!endpoint) throw new InvalidTokenError('opaque tokens are not accepted (no introspection endpoint)');
    const basic = Buffer.from(
      `${encodeURIComponent(settings.introspectionClientId!)}:${encodeURIComponent(settings.introspectionClientSecret ?? '')}`,
    ).toString('base64');
    const { status, body } = await fetchJson(endpoint, settings.httpTimeoutMs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    if (status !== 200)
      throw new AuthServerUnavailableError(
        `introspection answered HTTP ${status}${status === 401 ? ' (check the introspection client credentials)' : ''}`,
      );
    const answer = (body ?? {}) as Record<string, unknown>;
    if (answer.active !== true) throw new InvalidTokenError('token is not active');
    const now = Date.now() / 1000;
    const skew = settings.clockSkewSeconds;
    if (typeof answer.exp !== 'number') throw new InvalidTokenError('token has no expiry');
    if (answer.exp + skew < now) throw new InvalidTokenError('token expired');
    if (typeof answer.nbf === 'number' && answer.nbf - skew > now) throw new InvalidTokenError('token is not valid yet (nbf)');
    // an answer without iss is about the introspecting issuer's own token
    const iss = answer.iss === undefined ? settings.issuer : answer.iss;
    if (iss !== settings.issuer) throw new InvalidTokenError('token issuer is not trusted (iss)');
    const aud = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
    const accepted = expect.audiences;
    if (!aud.some((a) => accepted.includes(a as string))) throw new InvalidTokenError('token was not issued for this resource (aud)');
    // a client credentials token has no user: the client is the subject (RFC 7662 makes sub optional)
    const sub =
      typeof answer.sub === 'string' && answer.sub
        ? answer.sub
        : typeof answer.client_id === 'string' && answer.client_id
          ? answer.client_id
          : undefined;
    if (!sub) throw new InvalidTokenError('token names no subject (sub or client_id)');
    return authInfoFrom(token, { ...answer, iss, sub, exp: answer.exp }, expect.resource, settings);
  }

  private remember(key: string, info: AuthInfo): void {
    const ttl = this.opts.settings.introspectionCacheMs;
    if (ttl <= 0) return;
    const { token: _token, ...rest } = info;
    // a Map iterates in insertion order: past the bound, the oldest entries go first
    while (this.cache.size >= this.opts.settings.introspectionCacheSize) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { until: Math.min(Date.now() + ttl, (info.expiresAt ?? 0) * 1000), info: rest });
  }

  /** Entries held now (tests check the bound). */
  get size(): number {
    return this.cache.size;
  }
}
