/**
 * The JWT verifier and its key cache, on keys served over loopback HTTP by the test (the
 * end-to-end cases against a real authorization server are in test/oauth*.test.ts): the
 * algorithm allow-list, skew, `sub` and `iat`, the refetch on an unknown kid (at once, then
 * rate-limited), one fetch for a burst.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthServerUnavailableError, InvalidTokenError } from '../../../../src/mcp/auth/errors';
import { JwksCache } from '../../../../src/mcp/auth/jwks-cache';
import { JwtVerifier } from '../../../../src/mcp/auth/jwt-verifier';
import { OAuthSettingsSchema } from '../../../../src/mcp/auth/oauth-config';

const ISSUER = 'https://issuer.example.com';
const RESOURCE = new URL('https://mcp.example.com/mcp');
const expect_ = { resource: RESOURCE, audiences: [RESOURCE.href] };

interface Key {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  jwk: object;
}
function rsa(kid: string): Key {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg: 'RS256', privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}
function ec(kid: string): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg: 'ES256', privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' } };
}
const b64 = (v: object | Buffer) => (Buffer.isBuffer(v) ? v : Buffer.from(JSON.stringify(v))).toString('base64url');
function jwt(key: Key, claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })}.${b64({ iss: ISSUER, sub: 'alice', aud: RESOURCE.href, client_id: 'app', scope: 'mcp', iat: now, exp: now + 300, ...claims })}`;
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key.privateKey);
  return `${input}.${b64(signature)}`;
}

let published: Key[] = [];
let fetches = 0;
let server: http.Server;
let jwksUrl: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    fetches++;
    // no keep-alive: key generation blocks this process's loop for seconds under load, and a pooled
    // socket the server closes meanwhile would fail the next fetch ("fetch failed")
    res
      .writeHead(200, { 'content-type': 'application/json', connection: 'close' })
      .end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function verifier(overrides: Record<string, unknown> = {}, cache: Partial<{ cooldownMs: number; maxAgeMs: number }> = {}) {
  const settings = OAuthSettingsSchema.parse({ issuer: ISSUER, clockSkewSeconds: 5, ...overrides });
  const keys = new JwksCache({
    jwksUri: async () => jwksUrl,
    timeoutMs: 10_000, // loopback, but a loaded machine may be slow: the time-out is not what these tests check
    cooldownMs: cache.cooldownMs ?? 60_000,
    maxAgeMs: cache.maxAgeMs ?? 600_000,
  });
  return new JwtVerifier(settings, keys);
}

test('a good token: the AuthInfo names the user, client, scopes and principal', async () => {
  const key = rsa('a');
  published = [key];
  const info = await verifier().verify(jwt(key), expect_);
  expect(info).toMatchObject({
    clientId: 'app',
    scopes: ['mcp'],
    resource: RESOURCE,
    extra: { sub: 'alice', iss: ISSUER, client: 'app', principal: 'oauth:["https://issuer.example.com","alice","app"]' },
  });
});

test('ES256 works; the allow-list refuses an algorithm it does not name', async () => {
  const key = ec('e');
  published = [key, rsa('r')];
  await expect(verifier().verify(jwt(key), expect_)).resolves.toBeDefined();
  await expect(verifier({ algorithms: ['RS256'] }).verify(jwt(key), expect_)).rejects.toThrow('token signing algorithm is not allowed');
});

test.each([
  ['expired beyond the skew', { exp: Math.floor(Date.now() / 1000) - 10 }, 'token expired'],
  ['not valid yet beyond the skew', { nbf: Math.floor(Date.now() / 1000) + 60 }, 'token is not valid yet (nbf)'],
  ['for another audience', { aud: 'https://other.example.com/mcp' }, 'token was not issued for this resource (aud)'],
  ['for another issuer', { iss: 'https://evil.example.com' }, 'token issuer is not trusted (iss)'],
  ['without a subject', { sub: undefined }, 'token claim check failed'],
  ['with a numeric subject', { sub: 42 }, 'token subject (sub) is not a non-empty string'],
  ['with an empty subject', { sub: '' }, 'token subject (sub) is not a non-empty string'],
  ['issued in the future beyond the skew', { iat: Math.floor(Date.now() / 1000) + 3600 }, 'token is issued in the future (iat)'],
])('%s: refused', async (_label, claims, message) => {
  const key = rsa('k');
  published = [key];
  const err = await verifier()
    .verify(jwt(key, claims), expect_)
    .catch((e) => e);
  expect(err).toBeInstanceOf(InvalidTokenError);
  expect(err.message).toContain(message);
});

test('within the skew: accepted', async () => {
  const key = rsa('k');
  published = [key];
  const now = Math.floor(Date.now() / 1000);
  await expect(verifier().verify(jwt(key, { exp: now - 2, nbf: now + 2, iat: now + 2 }), expect_)).resolves.toBeDefined();
});

test('an unknown kid refetches the set at once the first time, then at most once per cooldown, and a burst makes one fetch', async () => {
  // keys first: generating them takes time under load, which must not eat the cooldown
  const a = rsa('a');
  const b = rsa('b');
  const c = rsa('c');
  const strangers = Array.from({ length: 8 }, (_, i) => jwt({ ...rsa('x'), kid: `x${i}` }));
  published = [a];
  const v = verifier({}, { cooldownMs: 1_500 });
  await v.verify(jwt(a), expect_);
  published = [a, b];
  fetches = 0;
  // a key rotated in just after the first fetch: fetched at once, accepted
  await expect(v.verify(jwt(b), expect_)).resolves.toBeDefined();
  expect(fetches).toBe(1);
  // another unknown kid within the cooldown of that fetch: refused without a fetch
  published = [a, b, c];
  await expect(v.verify(jwt(c), expect_)).rejects.toThrow('token signed by an unknown key');
  expect(fetches).toBe(1);
  // the cooldown passes on the cache's clock (Date.now), not by waiting: a slow machine cannot end it early
  const realNow = Date.now;
  jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 1_600);
  const results = await Promise.allSettled([v.verify(jwt(c), expect_), ...strangers.map((t) => v.verify(t, expect_))]);
  jest.restoreAllMocks();
  expect(results[0].status).toBe('fulfilled');
  expect(results.slice(1).every((r) => r.status === 'rejected')).toBe(true);
  expect(fetches).toBe(2);
});

test('a key removed from the set stops working at the next fetch', async () => {
  const a = rsa('a');
  const b = rsa('b');
  published = [a, b];
  const v = verifier({}, { cooldownMs: 0 });
  await v.verify(jwt(a), expect_);
  published = [b];
  await expect(v.verify(jwt({ ...rsa('c') }), expect_)).rejects.toThrow('unknown key'); // refetches
  await expect(v.verify(jwt(a), expect_)).rejects.toThrow('unknown key');
});

test('no key set can be had: AuthServerUnavailableError (503), not a 401', async () => {
  const settings = OAuthSettingsSchema.parse({ issuer: ISSUER });
  const keys = new JwksCache({ jwksUri: async () => 'http://127.0.0.1:1/jwks', timeoutMs: 500, cooldownMs: 0, maxAgeMs: 600_000 });
  const err = await new JwtVerifier(settings, keys).verify(jwt(rsa('a')), expect_).catch((e) => e);
  expect(err).toBeInstanceOf(AuthServerUnavailableError);
  expect(err.message).toMatch(/authorization server unreachable \(http:\/\/127\.0\.0\.1:1\/jwks\)/);
});
