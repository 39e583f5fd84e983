import { AuthServerUnavailableError } from './errors';
import { fetchJson } from './http-fetch';
import { jose, type Jose } from './jose';

export interface JwksCacheOptions {
  /** The JWKS URL, or how to find it (discovery). */
  jwksUri: () => Promise<string>;
  timeoutMs: number;
  /**
   * After an unknown kid made a fetch, another unknown kid waits this long before the next one
   * (a stream of made-up kids costs one fetch per cooldown). Fetches made for other reasons
   * (the first, the max age) do not start it: a key rotated in just after them works at once.
   */
  cooldownMs: number;
  /** Older than this, the set is fetched again before use; if that fails the keys held keep working. */
  maxAgeMs: number;
  log?: (message: string) => void;
}

/**
 * The issuer's signing keys, for jose's jwtVerify. Unlike jose's remote set, keys already held
 * keep verifying while the JWKS endpoint is down or slow (stale-if-error), and an unknown `kid`
 * refetches at once, then rate-limited: a rotated-in key works without a restart or a wait, and
 * a key removed from the set stops working at the next successful fetch.
 */
export class JwksCache {
  private local?: ReturnType<typeof jose.createLocalJWKSet>;
  private fetchedAt = 0;
  private attemptedAt = 0;
  /** When an unknown kid last made a fetch: the cooldown counts from it. */
  private unknownKidFetchAt = -Infinity;
  private pending?: Promise<void>;
  /** Why the last fetch failed, until one succeeds: an unknown kid then cannot be decided (503, not 401). */
  private lastError?: Error;

  constructor(private readonly opts: JwksCacheOptions) {}

  /** The key for a token's header; throws jose's JWKSNoMatchingKey, or AuthServerUnavailableError when no set can be had. */
  readonly getKey = async (header: Jose.JWSHeaderParameters, token: Jose.FlattenedJWSInput): Promise<Jose.CryptoKey> => {
    const stale = Date.now() - this.fetchedAt > this.opts.maxAgeMs;
    if (!this.local || (stale && Date.now() - this.attemptedAt >= this.opts.cooldownMs)) await this.refresh(!this.local);
    try {
      return await this.local!(header, token);
    } catch (err) {
      if (!(err instanceof jose.errors.JWKSNoMatchingKey)) throw err;
      // a burst of unknown kids joins the fetch under way (this.pending) instead of waiting out the cooldown
      if (!this.pending && Date.now() - this.unknownKidFetchAt < this.opts.cooldownMs) throw this.lastError ?? err;
      if (!this.pending) this.unknownKidFetchAt = Date.now();
      await this.refresh(true);
      return this.local!(header, token);
    }
  };

  /** One fetch at a time; `mustSucceed` rethrows a failure, otherwise the keys held stay in use. */
  private async refresh(mustSucceed: boolean): Promise<void> {
    this.pending ??= this.fetchSet().then(
      () => {
        this.pending = this.lastError = undefined;
      },
      (err: Error) => {
        this.pending = undefined;
        this.lastError = err instanceof AuthServerUnavailableError ? err : new AuthServerUnavailableError(err.message);
        throw this.lastError;
      },
    );
    try {
      await this.pending;
    } catch (err) {
      this.opts.log?.(`JWKS fetch failed${this.local ? ', keeping the keys held' : ''}: ${(err as Error).message}`);
      if (mustSucceed || !this.local) throw err;
    }
  }

  private async fetchSet(): Promise<void> {
    this.attemptedAt = Date.now();
    const uri = await this.opts.jwksUri();
    const { status, body } = await fetchJson(uri, this.opts.timeoutMs);
    const keys = (body as { keys?: unknown })?.keys;
    if (status !== 200 || !Array.isArray(keys))
      throw new AuthServerUnavailableError(`JWKS ${uri} answered HTTP ${status} without a key set`);
    this.local = jose.createLocalJWKSet({ keys: keys as Jose.JWK[] });
    this.fetchedAt = Date.now();
  }
}
