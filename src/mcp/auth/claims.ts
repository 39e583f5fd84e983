import type { AuthInfo } from '@modelcontextprotocol/server';
import type { OAuthSettings } from './oauth-config';

/** What a verified token (JWT claims or an introspection answer) says, in one shape. */
export interface TokenClaims {
  iss: string;
  sub?: unknown;
  scope?: unknown;
  scp?: unknown;
  client_id?: unknown;
  azp?: unknown;
  cid?: unknown;
  appid?: unknown;
  exp?: unknown;
}

/** Scopes from `scope` (RFC 9068/7662, space-separated) or `scp` (Okta: array, Entra: space-separated). */
export function scopesOf(claims: TokenClaims): string[] {
  const raw = claims.scope ?? claims.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))];
}

/** The OAuth client the token was issued to: `client_id` (RFC 9068), `azp`, Okta's `cid`, Entra v1's `appid`. */
export function clientOf(claims: TokenClaims): string | undefined {
  for (const v of [claims.client_id, claims.azp, claims.cid, claims.appid]) if (typeof v === 'string' && v) return v;
  return undefined;
}

/**
 * The task owner: the end user (`sub`) scoped by the issuer (two issuers' `alice` are two
 * people), and the client too unless tasks are shared across a user's clients. JSON keeps
 * the parts unambiguous whatever characters they hold.
 */
export function principalFor(iss: string, sub: string, client: string | undefined, binding: OAuthSettings['taskBinding']): string {
  return 'oauth:' + JSON.stringify(binding === 'user' ? [iss, sub] : [iss, sub, client ?? null]);
}

/** The AuthInfo of an accepted token; `extra.principal` is what owns tasks (see principalOfAuth). */
export function authInfoFrom(
  token: string,
  claims: TokenClaims & { sub: string; exp: number },
  resource: URL,
  settings: OAuthSettings,
): AuthInfo {
  const client = clientOf(claims);
  return {
    token,
    clientId: client ?? claims.sub,
    scopes: scopesOf(claims),
    // the verifier allowed `exp` within the skew; the SDK's gate compares expiresAt without one
    expiresAt: claims.exp + settings.clockSkewSeconds,
    resource,
    extra: { sub: claims.sub, iss: claims.iss, client, principal: principalFor(claims.iss, claims.sub, client, settings.taskBinding) },
  };
}
