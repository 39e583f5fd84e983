/**
 * Opaque tokens by RFC 7662 introspection against a real oidc-provider: what is accepted, the
 * short cache bounded in size (answers reused, never past their time; the oldest dropped),
 * and an unreachable endpoint.
 */
import { AuthServerUnavailableError, InvalidTokenError } from '../../src/mcp/auth/errors';
import { IntrospectionVerifier } from '../../src/mcp/auth/introspection';
import { OAuthSettingsSchema } from '../../src/mcp/auth/oauth-config';
import { makeKey, startIdentityProvider, stopIdentityProviders, type IdentityProvider } from '../support/identity-provider';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const expected = { resource: new URL(RESOURCE), audiences: [RESOURCE] };
let idp: IdentityProvider;

beforeAll(async () => {
  idp = await startIdentityProvider([makeKey('k1')]);
});
afterAll(() => stopIdentityProviders());

function verifier(overrides: Record<string, unknown> = {}) {
  const settings = OAuthSettingsSchema.parse({
    issuer: idp.issuer,
    introspectionClientId: 'rs',
    introspectionClientSecret: 'rs-secret-0123456789',
    ...overrides,
  });
  return new IntrospectionVerifier({ settings, endpoint: async () => `${idp.issuer}/token/introspection` });
}

test('an active opaque token for this resource: its client is the subject, its scopes are read', async () => {
  const token = await idp.clientCredentials('svc-opaque', RESOURCE);
  const info = await verifier().verify(token, expected);
  expect(info).toMatchObject({
    token,
    clientId: 'svc-opaque',
    scopes: ['mcp', 'tools:admin'],
    extra: { sub: 'svc-opaque', iss: idp.issuer },
  });
});

test.each([
  ['a token nobody issued', async () => 'never-issued-0123456789', 'token is not active'],
  [
    'a token for another resource',
    async () => idp.clientCredentials('svc-opaque', 'https://other.example.com/mcp'),
    'token was not issued for this resource (aud)',
  ],
])('%s: refused', async (_label, token, message) => {
  const err = await verifier()
    .verify(await token(), expected)
    .catch((e) => e);
  expect(err).toBeInstanceOf(InvalidTokenError);
  expect(err.message).toBe(message);
});

test('wrong introspection credentials: 503 saying so (the token cannot be decided)', async () => {
  const token = await idp.clientCredentials('svc-opaque', RESOURCE);
  const err = await verifier({ introspectionClientSecret: 'wrong-secret' })
    .verify(token, expected)
    .catch((e) => e);
  expect(err).toBeInstanceOf(AuthServerUnavailableError);
  expect(err.message).toMatch(/introspection answered HTTP 401 \(check the introspection client credentials\)/);
});

test('the cache: answers are reused while the provider is away, bounded in size, oldest out first', async () => {
  const v = verifier({ introspectionCacheSize: 2, introspectionCacheMs: 60_000 });
  const tokens = await Promise.all([1, 2, 3].map(() => idp.clientCredentials('svc-opaque', RESOURCE)));
  for (const t of tokens) await v.verify(t, expected);
  expect(v.size).toBe(2);
  const port = idp.port;
  await idp.stop();
  try {
    // the two newest are answered from the cache; the oldest was dropped and cannot be checked now
    await expect(v.verify(tokens[2], expected)).resolves.toMatchObject({ token: tokens[2] });
    await expect(v.verify(tokens[1], expected)).resolves.toMatchObject({ token: tokens[1] });
    await expect(v.verify(tokens[0], expected)).rejects.toBeInstanceOf(AuthServerUnavailableError);
    // an answer is never reused for another resource
    await expect(v.verify(tokens[2], { resource: new URL('http://127.0.0.1:9/other'), audiences: [RESOURCE] })).rejects.toBeInstanceOf(
      AuthServerUnavailableError,
    );
  } finally {
    idp = await startIdentityProvider([makeKey('k1')], { port });
  }
});

test('a cache entry lasts no longer than its token', async () => {
  const v = verifier({ introspectionCacheMs: 60_000, clockSkewSeconds: 0 });
  const token = await idp.clientCredentials('svc-opaque-short', RESOURCE); // lives 2 s
  await v.verify(token, expected);
  await new Promise((r) => setTimeout(r, 2_500));
  await expect(v.verify(token, expected)).rejects.toThrow(/not active|expired/);
});
