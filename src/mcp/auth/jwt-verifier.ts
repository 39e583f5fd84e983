import type { AuthInfo } from '@modelcontextprotocol/server';
import { authInfoFrom } from './claims';
import { AuthServerUnavailableError, InvalidTokenError } from './errors';
import { jose, type Jose } from './jose';
import type { JwksCache } from './jwks-cache';
import type { OAuthSettings } from './oauth-config';

/** What this request's token must be issued for: the resource identifier and the accepted `aud` values. */
export interface Expected {
  resource: URL;
  audiences: string[];
}

/** Three base64url parts: a JWS compact serialization (what a JWT access token is). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/**
 * JWT access tokens (RFC 9068) verified locally: signature by a key of the issuer's JWKS with
 * an allowed asymmetric algorithm, `iss`, `aud` (one of the accepted audiences: RFC 8707, a
 * token for another resource is refused), `exp` required, `exp`/`nbf`/`iat` within the skew,
 * and a `sub` that is a non-empty string (it names the task owner).
 */
export class JwtVerifier {
  constructor(
    private readonly settings: OAuthSettings,
    private readonly keys: JwksCache,
  ) {}

  async verify(token: string, expect: Expected): Promise<AuthInfo> {
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, this.keys.getKey, {
        issuer: this.settings.issuer,
        audience: expect.audiences,
        algorithms: this.settings.algorithms,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (err instanceof AuthServerUnavailableError) throw err;
      throw new InvalidTokenError(reason(err as Error));
    }
    checkOwnClaims(payload, this.settings.clockSkewSeconds);
    return authInfoFrom(token, payload, expect.resource, this.settings);
  }
}

/**
 * What jose leaves unchecked: it requires `sub` present but takes any type (a numeric or empty
 * one would name no one, or collide), and it checks `iat` in the future only with maxTokenAge.
 */
function checkOwnClaims(
  payload: Jose.JWTPayload,
  skewSeconds: number,
): asserts payload is Jose.JWTPayload & { iss: string; sub: string; exp: number } {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0)
    throw new InvalidTokenError('token subject (sub) is not a non-empty string');
  if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + skewSeconds)
    throw new InvalidTokenError('token is issued in the future (iat)');
}

/** A short reason for the 401 and the log; jose's messages name the claim, never the token. */
function reason(err: Error): string {
  const { errors } = jose;
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'token was not issued for this resource (aud)';
    if (err.claim === 'iss') return 'token issuer is not trusted (iss)';
    if (err.claim === 'nbf') return 'token is not valid yet (nbf)';
    return `token claim check failed: ${err.message}`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token signing algorithm is not allowed';
  if (err instanceof errors.JWKSNoMatchingKey) return 'token signed by an unknown key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (err instanceof errors.JOSEError) return `malformed token: ${err.message}`;
  return 'malformed token';
}
