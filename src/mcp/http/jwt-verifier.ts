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
 * and a `sub`.
 */
export class JwtVerifier {
  constructor(private readonly settings: OAuthSettings, private readonly keys: JwksCache) {}

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
    return authInfoFrom(token, payload as typeof payload & { iss: string; sub: string; exp: number }, expect.resource, this.settings);
  }
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
