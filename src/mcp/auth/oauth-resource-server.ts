import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { logger } from '../../tasks';
import { StaticTokenVerifier } from './static-tokens';
import { AuthServerDiscovery } from './discovery';
import { AuthServerUnavailableError, InvalidTokenError } from './errors';
import { IntrospectionVerifier } from './introspection';
import { JwksCache } from './jwks-cache';
import { type Expected, JwtVerifier, looksLikeJwt } from './jwt-verifier';
import type { OAuthSettings } from './oauth-config';
import { isPrmPath, protectedResourceMetadata, prmResponse, prmUrlOf } from './protected-resource-metadata';
import { ToolScopes } from './tool-scopes';

export interface ResourceServerOptions {
  /** The OAuth 2.1 resource server settings; without them only `tokenVerifier` authenticates. */
  oauth?: OAuthSettings;
  /** Static tokens (`--auth-tokens-file`) or any verifier of your own; tried before OAuth. */
  tokenVerifier?: OAuthTokenVerifier;
  /** Scopes the tools name (advertised in scopes_supported, granted to static tokens). */
  toolScopes: string[];
  /** The MCP endpoint's path (the PRM's path-suffixed form). */
  mcpPath: string;
  resourceName: string;
}

/**
 * The MCP endpoint as an OAuth 2.1 resource server (MCP authorization spec): a bearer gate in
 * front of every MCP request (401 with `resource_metadata` and the scope to ask for, 403
 * `insufficient_scope`, 503 while the authorization server cannot be asked), RFC 9728
 * metadata, and the per-tool scope checks. Static tokens and OAuth combine: a static token is
 * tried first (service tokens), then the token is a JWT verified locally, else introspected.
 */
export class ResourceServer {
  readonly scopes: ToolScopes;
  readonly scopesSupported: string[];
  private readonly jwt?: JwtVerifier;
  private readonly introspection?: IntrospectionVerifier;
  private readonly discovery?: AuthServerDiscovery;

  constructor(private readonly opts: ResourceServerOptions) {
    const oauth = opts.oauth;
    const required = oauth?.requiredScopes ?? [];
    this.scopesSupported = [...new Set([...required, ...(oauth?.scopesSupported ?? []), ...opts.toolScopes])];
    this.scopes = new ToolScopes(required, new Set(this.scopesSupported));
    if (!oauth) return;
    const discovery = (this.discovery = new AuthServerDiscovery(oauth.issuer, oauth.httpTimeoutMs));
    const keys = new JwksCache({
      jwksUri: async () =>
        oauth.jwksUri ??
        (await discovery.metadata()).jwks_uri ??
        Promise.reject(new AuthServerUnavailableError(`${oauth.issuer} publishes no jwks_uri`)),
      timeoutMs: oauth.httpTimeoutMs,
      cooldownMs: oauth.jwksCooldownMs,
      maxAgeMs: oauth.jwksMaxAgeMs,
      log: (m) => logger.warn({ event: 'auth.jwks' }, m),
    });
    this.jwt = new JwtVerifier(oauth, keys);
    if (oauth.introspection === 'auto' && oauth.introspectionClientId) {
      this.introspection = new IntrospectionVerifier({
        settings: oauth,
        endpoint: async () => oauth.introspectionEndpoint ?? (await discovery.metadata()).introspection_endpoint,
      });
    }
  }

  get enabled(): boolean {
    return !!(this.opts.oauth || this.opts.tokenVerifier);
  }

  /** Discovery at start, so a misconfigured issuer shows in the log at once (requests retry it anyway). */
  async warmUp(log: (m: string) => void): Promise<void> {
    if (!this.discovery) return;
    await this.discovery.metadata().then(
      (m) =>
        log(
          `OAuth: issuer ${m.issuer} discovered (jwks ${this.opts.oauth!.jwksUri ?? m.jwks_uri ?? 'none'}, introspection ${this.introspection ? 'on' : 'off'})`,
        ),
      (err: Error) => log(`OAuth: ${err.message}; requests are answered 503 until it answers`),
    );
  }

  /**
   * The resource identifier for this request: the configured one, else this endpoint's URL as
   * the request reached it (its Host was checked against the allowed hosts already).
   */
  resourceFor(request: Request): URL {
    if (this.opts.oauth?.resource) return new URL(this.opts.oauth.resource);
    const url = new URL(request.url);
    return new URL(this.opts.mcpPath, url.origin);
  }

  private expected(resource: URL): Expected {
    const href = resource.href;
    const alt = href.endsWith('/') ? href.slice(0, -1) : `${href}/`;
    return { resource, audiences: this.opts.oauth?.audiences ?? [href, alt] };
  }

  /** RFC 9728 metadata when the request asks for it; undefined otherwise (and without OAuth). */
  serveMetadata(request: Request): Response | undefined {
    const oauth = this.opts.oauth;
    if (!oauth) return undefined;
    const resource = this.resourceFor(request);
    if (!isPrmPath(new URL(request.url).pathname, this.opts.mcpPath, resource)) return undefined;
    return prmResponse(
      request,
      protectedResourceMetadata(resource, {
        issuer: oauth.issuer,
        scopesSupported: this.scopesSupported,
        resourceName: this.opts.resourceName,
      }),
    );
  }

  /** The verified caller, or the answer to send instead (401/403/503). Never throws. */
  async gate(request: Request): Promise<AuthInfo | Response> {
    const resource = this.resourceFor(request);
    const resourceMetadataUrl = this.opts.oauth ? prmUrlOf(resource) : undefined;
    const requiredScopes = this.opts.oauth?.requiredScopes ?? [];
    const expect = this.expected(resource);
    try {
      return await verifyBearerToken(request.headers.get('authorization'), {
        verifier: { verifyAccessToken: (token) => this.verify(token, expect) },
        requiredScopes,
        resourceMetadataUrl,
      });
    } catch (err) {
      if (err instanceof AuthServerUnavailableError) {
        logger.warn({ event: 'auth.unavailable', reason: err.message }, 'token cannot be checked now');
        return Response.json(
          {
            error: 'temporarily_unavailable',
            error_description: `The authorization server cannot be reached to check the token; retry later. ${err.message}`,
          },
          { status: 503, headers: { 'retry-after': String(err.retryAfterSeconds), 'cache-control': 'no-store' } },
        );
      }
      if (err instanceof OAuthError) {
        logger.info({ event: 'auth.refused', code: err.code, reason: err.message }, 'bearer token refused');
        return bearerAuthChallengeResponse(err, { requiredScopes, resourceMetadataUrl });
      }
      // a bug in a verifier must not crash the process or let the request through
      logger.error({ event: 'auth.failed', err: (err as Error).message }, 'token verification failed');
      return bearerAuthChallengeResponse(new OAuthError(OAuthErrorCode.ServerError, 'token verification failed'));
    }
  }

  private async verify(token: string, expect: Expected): Promise<AuthInfo> {
    const own = this.opts.tokenVerifier;
    if (own) {
      try {
        const info = await own.verifyAccessToken(token);
        // static service tokens are trusted with every scope, as before scopes existed
        const scopes = own instanceof StaticTokenVerifier ? [...new Set([...info.scopes, ...this.scopesSupported])] : info.scopes;
        return { ...info, scopes, resource: info.resource ?? expect.resource };
      } catch (err) {
        if (!this.opts.oauth || !(err instanceof OAuthError) || err.code !== OAuthErrorCode.InvalidToken) throw err;
      }
    }
    if (!this.jwt) throw new InvalidTokenError('Unknown bearer token');
    if (looksLikeJwt(token)) return this.jwt.verify(token, expect);
    if (this.introspection) return this.introspection.verify(token, expect);
    throw new InvalidTokenError('malformed token (not a JWT, and opaque tokens are not introspected)');
  }
}
