// A real OpenID provider (npm `oidc-provider`, certified) on loopback, for the OAuth tests.
// Started by test/support/identity-provider.ts as its own process (the package is ESM-only and
// wants its own realm); configured by OIDC_TEST_CONFIG (JSON). Prints `listening <issuer>`.
//
// - client credentials: confidential clients `svc` (JWT access tokens), `svc-opaque` (opaque
//   ones, for introspection), `svc-short` and `svc-opaque-short` (2 s tokens, for expiry), `svc-narrow` (scope `mcp` only);
//   `rs` is the resource server's own client, for introspection;
// - authorization code + PKCE for dynamically registered public clients (the MCP SDK's), with
//   a headless interaction: the account is the `login_hint` the test adds to the authorization
//   URL, and every requested scope is granted (consent is automatic).
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG);
const { port, keys, issuer = `http://127.0.0.1:${port}` } = config;
const SCOPES = 'mcp tools:admin';

const provider = new Provider(issuer, {
  jwks: { keys },
  clients: [
    {
      client_id: 'svc',
      client_secret: 'svc-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'svc2',
      client_secret: 'svc2-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'svc-opaque',
      client_secret: 'svc-opaque-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'svc-opaque-short',
      client_secret: 'svc-opaque-short-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'svc-short',
      client_secret: 'svc-short-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'svc-narrow',
      client_secret: 'svc-narrow-secret-0123456789',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
    { client_id: 'rs', client_secret: 'rs-secret-0123456789', grant_types: [], response_types: [], redirect_uris: [] },
  ],
  // `mcp` is a scope clients register for; `tools:admin` is only the resource server's
  // (getResourceServerInfo), as an API permission is at Auth0/Okta: a client registered for `mcp`
  // (the MCP SDK registers with the scope of the first 401) may still step up to it
  scopes: ['openid', 'offline_access', 'mcp'],
  findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resourceIndicator, client) => ({
        scope: client.clientId === 'svc-narrow' ? 'mcp' : SCOPES,
        audience: resourceIndicator,
        accessTokenTTL: client.clientId.endsWith('-short') ? 2 : 600,
        accessTokenFormat: client.clientId.startsWith('svc-opaque') ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.proxy = false;

/** The headless login and consent: who logs in is the login_hint; everything asked for is granted. */
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = params.login_hint || 'alice';
    return provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const missing = prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.writeHead(500).end(String(err));
    });
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${issuer}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
