import * as z from 'zod';
import { durationMs } from '../duration';

/** RFC 6749 scope-token: printable ASCII without space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
export const ScopeSchema = z.string().regex(SCOPE_TOKEN, 'an OAuth scope token (printable ASCII, no spaces, quotes or backslashes)');

/** Asymmetric JWS algorithms only: `none` and HMAC (where a public key could be used as the secret) are never accepted. */
export const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

/** An https URL (http only on loopback, for local identity providers and tests). */
const SecureUrl = z.url().refine((v) => {
  if (!URL.canParse(v)) return true; // z.url() has said so already (zod runs refinements anyway)
  const u = new URL(v);
  return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopback(u));
}, 'must be https (http only on localhost / 127.0.0.1)');

/** Comma- or space-separated lists from flags and environment variables. */
const List = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v), z.array(item));

/**
 * The OAuth 2.1 resource server: where tokens come from and what they must say. Enabled by
 * `issuer`; everything else has a default a platform team would pick.
 */
export const OAuthSettingsSchema = z
  .strictObject({
    /** The authorization server's issuer URL, exactly as tokens carry it in `iss`; its metadata is discovered (RFC 8414, then OpenID discovery). */
    issuer: SecureUrl,
    /**
     * This server's RFC 8707 resource identifier (and RFC 9728 `resource`): default, the URL it
     * listens on (`http://host:port/mcp`). Set it behind a reverse proxy or load balancer to
     * the public URL clients use.
     */
    resource: SecureUrl.optional(),
    /** Accepted `aud` values; default: the resource identifier only (tokens for other resources are refused). */
    audiences: List(z.string().min(1)).optional(),
    /** Scopes every request needs (e.g. `mcp`); asked for in every 401 challenge. */
    requiredScopes: List(ScopeSchema).default([]),
    /** Extra scopes to advertise in `scopes_supported` besides the required ones and the tools' own. */
    scopesSupported: List(ScopeSchema).default([]),
    /** Tolerance on `exp`/`nbf`/`iat`, in seconds. */
    clockSkewSeconds: z.coerce.number().int().min(0).max(600).default(30),
    /** Accepted JWS algorithms; a subset of the asymmetric ones. */
    algorithms: List(z.enum(ASYMMETRIC_ALGS, { error: `one of ${ASYMMETRIC_ALGS.join(', ')} (asymmetric only)` })).default([
      ...ASYMMETRIC_ALGS,
    ]),
    /** Use this JWKS URL instead of the discovered `jwks_uri`. */
    jwksUri: SecureUrl.optional(),
    /** Bound on each call to the authorization server (discovery, JWKS, introspection), in ms. */
    httpTimeoutMs: durationMs(z.number().int().min(100).max(60_000)).default(5_000),
    /** An unknown `kid` fetches the JWKS again at once; after that fetch, other unknown kids wait this long (ms). */
    jwksCooldownMs: durationMs(z.number().int().min(0)).default(30_000),
    /** The JWKS is fetched again when older than this (ms); on failure the keys held keep working. */
    jwksMaxAgeMs: durationMs(z.number().int().min(1_000)).default(10 * 60_000),
    /** Opaque (non-JWT) tokens: `auto` introspects them when the issuer has an introspection endpoint and a client id is set; `off` refuses them. */
    introspection: z.enum(['auto', 'off']).default('auto'),
    /** Use this RFC 7662 endpoint instead of the discovered `introspection_endpoint`. */
    introspectionEndpoint: SecureUrl.optional(),
    /** This resource server's own client at the authorization server, to call introspection (client_secret_basic). */
    introspectionClientId: z.string().min(1).optional(),
    introspectionClientSecret: z.string().min(1).optional(),
    /** How long an introspection answer is reused (ms; never past the token's `exp`). */
    introspectionCacheMs: durationMs(z.number().int().min(0).max(300_000)).default(30_000),
    /** Introspection answers held at most. */
    introspectionCacheSize: z.coerce.number().int().min(1).default(10_000),
    /**
     * Whose tasks are whose: `user-and-client` (default) binds a task to the user (`sub`, by
     * issuer) AND the client that created it, so a user's tasks made through one client are not
     * visible to another; `user` shares them across every client of the same user.
     */
    taskBinding: z.enum(['user-and-client', 'user']).default('user-and-client'),
  })
  .refine((s) => !s.introspectionClientSecret || s.introspectionClientId, {
    message: 'introspectionClientSecret needs introspectionClientId',
    path: ['introspectionClientId'],
  });
export type OAuthSettings = z.infer<typeof OAuthSettingsSchema>;
export type OAuthSettingsInput = z.input<typeof OAuthSettingsSchema>;

/** Environment variables of each OAuth setting (flags and library options win over them). */
export const OAUTH_ENV_VARS: Record<keyof OAuthSettings, string> = {
  issuer: 'MCP_OAUTH_ISSUER',
  resource: 'MCP_OAUTH_RESOURCE',
  audiences: 'MCP_OAUTH_AUDIENCES',
  requiredScopes: 'MCP_OAUTH_REQUIRED_SCOPES',
  scopesSupported: 'MCP_OAUTH_SCOPES_SUPPORTED',
  clockSkewSeconds: 'MCP_OAUTH_CLOCK_SKEW_SECONDS',
  algorithms: 'MCP_OAUTH_ALGORITHMS',
  jwksUri: 'MCP_OAUTH_JWKS_URI',
  httpTimeoutMs: 'MCP_OAUTH_HTTP_TIMEOUT_MS',
  jwksCooldownMs: 'MCP_OAUTH_JWKS_COOLDOWN_MS',
  jwksMaxAgeMs: 'MCP_OAUTH_JWKS_MAX_AGE_MS',
  introspection: 'MCP_OAUTH_INTROSPECTION',
  introspectionEndpoint: 'MCP_OAUTH_INTROSPECTION_ENDPOINT',
  introspectionClientId: 'MCP_OAUTH_INTROSPECTION_CLIENT_ID',
  introspectionClientSecret: 'MCP_OAUTH_INTROSPECTION_CLIENT_SECRET',
  introspectionCacheMs: 'MCP_OAUTH_INTROSPECTION_CACHE_MS',
  introspectionCacheSize: 'MCP_OAUTH_INTROSPECTION_CACHE_SIZE',
  taskBinding: 'MCP_OAUTH_TASK_BINDING',
};

/** `--oauth-foo-bar` for `fooBar`, and its variable: for error messages. */
export function oauthHint(key: string): string {
  const name = OAUTH_ENV_VARS[key as keyof OAuthSettings];
  return name ? ` (--oauth-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} or ${name})` : '';
}
