import type { Command } from 'commander';

/** The OAuth flags of `serve`/`dev`; each has an MCP_OAUTH_* variable (oauth-config.ts). Secrets come only from the environment. */
export function addOAuthOptions(cmd: Command): Command {
  return cmd
    .option('--oauth-issuer <url>', 'OAuth 2.1: trust access tokens of this issuer (metadata discovered; MCP_OAUTH_ISSUER)')
    .option(
      '--oauth-resource <url>',
      "this server's public URL, the RFC 8707 resource tokens must be issued for (MCP_OAUTH_RESOURCE; default: the URL requests reach)",
    )
    .option('--oauth-audience <aud...>', 'accepted token audiences instead of the resource URL (MCP_OAUTH_AUDIENCES, comma-separated)')
    .option('--oauth-required-scope <scope...>', 'scopes every request needs (MCP_OAUTH_REQUIRED_SCOPES)')
    .option(
      '--oauth-scopes-supported <scope...>',
      'more scopes to advertise in the protected resource metadata (MCP_OAUTH_SCOPES_SUPPORTED)',
    )
    .option('--oauth-clock-skew-seconds <s>', 'tolerance on exp/nbf (MCP_OAUTH_CLOCK_SKEW_SECONDS, default 30)')
    .option('--oauth-algorithms <alg...>', 'accepted JWS algorithms, asymmetric only (MCP_OAUTH_ALGORITHMS)')
    .option('--oauth-jwks-uri <url>', 'JWKS URL instead of the discovered one (MCP_OAUTH_JWKS_URI)')
    .option('--oauth-http-timeout-ms <ms>', 'bound on each call to the authorization server (MCP_OAUTH_HTTP_TIMEOUT_MS, default 5000)')
    .option(
      '--oauth-jwks-cooldown-ms <ms>',
      'an unknown key refetches the JWKS at most this often (MCP_OAUTH_JWKS_COOLDOWN_MS, default 30000)',
    )
    .option('--oauth-jwks-max-age-ms <ms>', 'JWKS refetched when older (MCP_OAUTH_JWKS_MAX_AGE_MS, default 600000)')
    .option(
      '--oauth-introspection <mode>',
      'auto | off: opaque tokens by RFC 7662 introspection (MCP_OAUTH_INTROSPECTION; needs MCP_OAUTH_INTROSPECTION_CLIENT_ID/_SECRET)',
    )
    .option('--oauth-introspection-endpoint <url>', 'introspection URL instead of the discovered one (MCP_OAUTH_INTROSPECTION_ENDPOINT)')
    .option(
      '--oauth-task-binding <binding>',
      "user-and-client (default) | user: whether a user's tasks are shared across clients (MCP_OAUTH_TASK_BINDING)",
    );
}

/** The OAuth settings given as flags (undefined ones are left to the environment). */
export function oauthFlags(opts: Record<string, unknown>): Record<string, unknown> {
  return {
    issuer: opts.oauthIssuer,
    resource: opts.oauthResource,
    audiences: opts.oauthAudience,
    requiredScopes: opts.oauthRequiredScope,
    scopesSupported: opts.oauthScopesSupported,
    clockSkewSeconds: opts.oauthClockSkewSeconds,
    algorithms: opts.oauthAlgorithms,
    jwksUri: opts.oauthJwksUri,
    httpTimeoutMs: opts.oauthHttpTimeoutMs,
    jwksCooldownMs: opts.oauthJwksCooldownMs,
    jwksMaxAgeMs: opts.oauthJwksMaxAgeMs,
    introspection: opts.oauthIntrospection,
    introspectionEndpoint: opts.oauthIntrospectionEndpoint,
    taskBinding: opts.oauthTaskBinding,
  };
}
