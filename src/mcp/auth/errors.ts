import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/** A token that is not acceptable (401 `invalid_token`); the message says why, never the token. */
export class InvalidTokenError extends OAuthError {
  constructor(message: string) {
    super(OAuthErrorCode.InvalidToken, message);
  }
}

/**
 * The authorization server (discovery, JWKS, introspection) did not answer in time or answered
 * nonsense, so the token can be neither accepted nor refused: 503, the client may retry.
 */
export class AuthServerUnavailableError extends Error {
  readonly retryAfterSeconds = 5;
}
