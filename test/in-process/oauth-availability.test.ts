/**
 * When the authorization server is down or slow: bounded waits, 503 for what cannot be decided,
 * and requests whose keys the server holds keep being served. Also what the server refuses at
 * start, and the `user` task binding. A real oidc-provider; the faults come from a small HTTP
 * relay in front of its JWKS (the server is pointed at it with --oauth-jwks-uri).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  forgeRs256,
  makeKey,
  oauthEnv,
  startIdentityProvider,
  stopIdentityProviders,
  type IdentityProvider,
} from '../support/identity-provider';
import { configFromEnv } from '../support/in-process';
import { call, rpc } from '../support/mcp';
import { HeadlessOAuthProvider } from '../support/oauth-client';
import { spawnCli } from '../support/processes';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';

let temporal: TestTemporal;
let idp: IdentityProvider;
const k1 = makeKey('k1');

// the servers are the library's, in process, with the settings `serve` reads from oauthEnv's
// variables; what is refused at start and the flags are `serve` processes
const stack = useStack({ noServer: true });
beforeAll(async () => {
  temporal = stack.temporal;
  idp = await startIdentityProvider([k1]);
});
afterAll(() => stopIdentityProviders());
const serveWith = (env: NodeJS.ProcessEnv) => stack.serve({ config: configFromEnv(env) });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A relay to the provider's JWKS that can answer normally, hang (slow) or fail (down). */
async function jwksRelay(target: () => string) {
  let mode: 'ok' | 'slow' | 'down' = 'ok';
  let fetches = 0;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    fetches++;
    if (mode === 'slow') return void hanging.add(res);
    if (mode === 'down') return void res.writeHead(502).end('bad gateway');
    const upstream = await fetch(`${target()}/jwks`);
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    set: (m: typeof mode) => (mode = m),
    get fetches() {
      return fetches;
    },
    close: () => {
      hanging.forEach((r) => r.destroy());
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('JWKS down or slow', () => {
  test('known keys keep working; an unknown kid waits at most the timeout, then 503 with a clear message', async () => {
    const relay = await jwksRelay(() => idp.issuer);
    try {
      const { url } = await serveWith(
        oauthEnv(idp.issuer, { MCP_OAUTH_JWKS_URI: relay.url, MCP_OAUTH_HTTP_TIMEOUT_MS: '800', MCP_OAUTH_JWKS_MAX_AGE_MS: '1000' }),
      );
      const token = await idp.clientCredentials('svc', url);
      expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
      const stranger = forgeRs256(makeKey('k-new'), { iss: idp.issuer, sub: 'x', aud: url, exp: Math.floor(Date.now() / 1000) + 600 });
      for (const mode of ['slow', 'down'] as const) {
        relay.set(mode);
        await new Promise((r) => setTimeout(r, 1_100)); // the set is now past its max age: the server tries to refresh it
        // a token whose key is held: served (one bounded refresh attempt, then the keys held)
        const began = Date.now();
        expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
        expect(Date.now() - began).toBeLessThan(3_000);
        // a key it does not hold cannot be checked now: 503, soon, saying why
        await new Promise((r) => setTimeout(r, 350)); // past the refetch cooldown
        const t0 = Date.now();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(stranger) }, body: '{}' });
        expect(Date.now() - t0).toBeLessThan(3_000);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(await res.json()).toMatchObject({
          error: 'temporarily_unavailable',
          error_description: expect.stringMatching(mode === 'slow' ? /no answer within 800 ms/ : /HTTP 502/),
        });
        // and the server is still up, serving
        expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
      }
      relay.set('ok');
      await new Promise((r) => setTimeout(r, 350));
      // back up: the unknown key is now decided (401), not 503
      expect((await rpc(url, 'tools/list', {}, { headers: bearer(stranger) })).status).toBe(401);
    } finally {
      relay.close();
    }
  });

  test('started while the authorization server is down: 503 until it answers, then 200, without a restart', async () => {
    const down = await startIdentityProvider([k1]);
    const issuer = down.issuer;
    await down.stop();
    const { url, logs } = await serveWith(oauthEnv(issuer, { MCP_OAUTH_HTTP_TIMEOUT_MS: '500' }));
    await waitFor(async () => (/OAuth: authorization server metadata of .* not found/.test(logs()) ? true : undefined));
    const forged = forgeRs256(k1, { iss: issuer, sub: 'x', aud: 'http://x', exp: Math.floor(Date.now() / 1000) + 600 });
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(forged) })).status).toBe(503);
    const up = await startIdentityProvider([k1], { port: Number(new URL(issuer).port) });
    try {
      const token = await up.clientCredentials('svc', url);
      await new Promise((r) => setTimeout(r, 5_100)); // discovery is retried 5 s after a failure
      expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
    } finally {
      await up.stop();
    }
  });
});

describe('key rotation at the default cooldown (30 s)', () => {
  test('a key rotated in just after a fetch works at once; further unknown kids wait out the cooldown', async () => {
    const relay = await jwksRelay(() => idp.issuer);
    const k2 = makeKey('k2');
    try {
      const { url } = await serveWith(oauthEnv(idp.issuer, { MCP_OAUTH_JWKS_URI: relay.url, MCP_OAUTH_JWKS_COOLDOWN_MS: '30000' }));
      expect((await rpc(url, 'tools/list', {}, { headers: bearer(await idp.clientCredentials('svc', url)) })).status).toBe(200);
      await idp.restart([k2, k1]); // k2 signs now
      const rotated = await idp.clientCredentials('svc', url);
      const fetchesBefore = relay.fetches;
      expect((await rpc(url, 'tools/list', {}, { headers: bearer(rotated) })).status).toBe(200);
      expect(relay.fetches).toBe(fetchesBefore + 1);
      // made-up kids after that: refused, and no more fetches until the cooldown has passed
      const claims = { iss: idp.issuer, sub: 'x', aud: url, exp: Math.floor(Date.now() / 1000) + 600 };
      for (const kid of ['k3', 'k4', 'k5'])
        expect((await rpc(url, 'tools/list', {}, { headers: bearer(forgeRs256(makeKey(kid), claims)) })).status).toBe(401);
      expect(relay.fetches).toBe(fetchesBefore + 1);
    } finally {
      relay.close();
      await idp.restart([k1]); // the first key again for the other tests
    }
  });
});

describe('refused at start', () => {
  test.each([
    [
      'two principals with the same static token',
      { MCP_AUTH_TOKENS: 'alice:same-token-0123456789,bob:same-token-0123456789' },
      /MCP_AUTH_TOKENS: the same bearer token is given to two principals \(alice and bob\)/,
    ],
    [
      'an http issuer that is not loopback',
      { MCP_OAUTH_ISSUER: 'http://idp.example.com' },
      /oauth\.issuer \(--oauth-issuer or MCP_OAUTH_ISSUER\): must be https/,
    ],
    [
      'an HMAC algorithm',
      { MCP_OAUTH_ISSUER: 'https://idp.example.com', MCP_OAUTH_ALGORITHMS: 'RS256,HS256' },
      /oauth\.algorithms.*asymmetric only/,
    ],
    ['an unknown task binding', { MCP_OAUTH_ISSUER: 'https://idp.example.com', MCP_OAUTH_TASK_BINDING: 'client' }, /oauth\.taskBinding/],
  ])('%s', async (_label, env, message) => {
    const proc = spawnCli(['serve', '--port', '0'], { TEMPORAL_ADDRESS: temporal.address, ...env });
    const code = await new Promise((resolve) =>
      proc.child.exitCode !== null ? resolve(proc.child.exitCode) : proc.child.once('exit', resolve),
    );
    expect(code).toBe(2);
    expect(proc.output()).toMatch(message);
  });
});

describe("taskBinding 'user' (set by flags): one user's tasks are shared across that user's clients", () => {
  test('the same user through two clients sees the same task; another user does not', async () => {
    // by flags this time (the other tests use the environment)
    const flags = [
      '--oauth-issuer',
      idp.issuer,
      '--oauth-required-scope',
      'mcp',
      '--oauth-clock-skew-seconds',
      '1',
      '--oauth-task-binding',
      'user',
    ];
    const { url } = await stack.serveProcess(flags, { MCP_OWNER_KEY: 'an-owner-key-for-oauth-tests' });
    const prm = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))).json();
    expect(prm).toMatchObject({ authorization_servers: [idp.issuer], scopes_supported: ['mcp'] });
    const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import('@modelcontextprotocol/client');
    const login = async (provider: HeadlessOAuthProvider) => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
      await new Client({ name: 't', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
        .connect(transport)
        .catch((e) => {
          if (!(e instanceof UnauthorizedError)) throw e;
        });
      await transport.finishAuth(provider.callback!);
      return provider.accessToken;
    };
    const viaA = await login(new HeadlessOAuthProvider('dave'));
    const viaB = await login(new HeadlessOAuthProvider('dave'));
    const other = await login(new HeadlessOAuthProvider('erin'));
    const created = await call(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'shared', seconds: 0 } },
      { headers: bearer(viaA) },
    );
    expect((await call(url, 'tasks/get', { taskId: created.taskId }, { headers: bearer(viaB) })).taskId).toBe(created.taskId);
    expect((await rpc(url, 'tasks/get', { taskId: created.taskId }, { headers: bearer(other) })).body.error.code).toBe(-32602);
  });
});
