/**
 * The MCP endpoint as an OAuth 2.1 resource server, against a real authorization server
 * (`oidc-provider` on loopback, test/support/oidc-provider.mjs): protected resource metadata,
 * challenges, client credentials and authorization code + PKCE through the MCP SDK client's
 * own OAuth flow, scope step-up, per-tool scopes, key rotation, every bad token, introspection,
 * static tokens alongside, and users kept apart.
 */
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  forgeHs256WithPublicKey,
  forgeNone,
  forgeRs256,
  makeKey,
  oauthEnv,
  startIdentityProvider,
  stopIdentityProviders,
  type IdentityProvider,
} from '../support/identity-provider';
import { configFromEnv, fixturesModule } from '../support/in-process';
import { call, inRealmFetch, PROTOCOL, rpc, subscribe, taskSessionOf } from '../support/mcp';
import { HeadlessOAuthProvider } from '../support/oauth-client';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { toolsFromFile } from '../../src/mcp/workflow-tools';

let temporal: TestTemporal;
let idp: IdentityProvider;
let url: string;
let serveOutput: () => string;
const k1 = makeKey('k1');
const STATIC = 'static-ops-token-0123456789';

/** A tools file adding a tool that needs `tools:admin`, run by the fixtures' waitAndEcho workflow. */
function scopedToolsFile(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-oauth-')), 'tools.json');
  const inputSchema = {
    type: 'object',
    properties: { text: { type: 'string' }, seconds: { type: 'number' } },
    required: ['text', 'seconds'],
  };
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        {
          name: 'admin_echo',
          description: 'echo, for admins',
          inputSchema,
          workflowType: 'waitAndEcho',
          taskMode: 'optional',
          scopes: ['tools:admin'],
        },
      ],
    }),
  );
  return file;
}

// the server's settings are those `serve` reads from oauthEnv's variables; --tools adds the file's tool
const stack = useStack({ noServer: true });
beforeAll(async () => {
  temporal = stack.temporal;
  idp = await startIdentityProvider([k1]);
  const served = await stack.serve({
    config: configFromEnv(oauthEnv(idp.issuer)),
    tokens: `ops:${STATIC}`,
    tools: [...fixturesModule().tools, ...toolsFromFile(scopedToolsFile())],
  });
  url = served.url;
  serveOutput = served.logs;
});

afterAll(() => stopIdentityProviders());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const prmUrl = () => `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw 2025-11-25 POST (the 2025-11-25 Tasks revision). */
async function post2025(message: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  return { status: res.status, www: res.headers.get('www-authenticate'), text: await res.text() };
}

/** Polls tasks/get with a token until the task is terminal. */
async function untilTerminal(taskId: string, headers: Record<string, string>, timeoutMs = 30_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(200)) {
    const task = await call(url, 'tasks/get', { taskId }, { headers });
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
  }
  throw new Error(`task ${taskId} did not end`);
}

describe('protected resource metadata (RFC 9728)', () => {
  test.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    '%s names the resource, the issuer, the scopes and the bearer method',
    async (p) => {
      const res = await fetch(new URL(p, url));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: url,
        authorization_servers: [idp.issuer],
        scopes_supported: ['mcp', 'tools:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'mcp-temporal-tasks',
      });
    },
  );

  test('a POST to it is refused, and other well-known paths are not served', async () => {
    expect((await fetch(prmUrl(), { method: 'POST' })).status).toBe(405);
    expect((await fetch(new URL('/.well-known/oauth-protected-resource/other', url))).status).toBe(404);
  });
});

describe('challenges: every MCP surface is gated alike', () => {
  const challenge = () =>
    `Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp", resource_metadata="${prmUrl()}"`;

  test.each([
    ['2026 tools/list', () => rpc(url, 'tools/list')],
    ['2026 tools/call', () => rpc(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } })],
    ['2026 tasks/get', () => rpc(url, 'tasks/get', { taskId: 'task_' + 'A'.repeat(32) })],
    ['2026 subscriptions/listen', () => rpc(url, 'subscriptions/listen', { notifications: { taskIds: ['task_' + 'A'.repeat(32)] } })],
  ])('%s without a token: 401 naming the metadata and the scope', async (_label, send) => {
    const { status } = await send();
    expect(status).toBe(401);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.headers.get('www-authenticate')).toBe(challenge());
  });

  test('2025-11-25 initialize, tools/call and tasks/get without a token: 401 with the same challenge', async () => {
    for (const message of [
      { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { method: 'tools/call', params: { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 }, task: {} } },
      { method: 'tasks/get', params: { taskId: 'task_' + 'A'.repeat(32) } },
    ]) {
      const { status, www } = await post2025(message);
      expect(status).toBe(401);
      expect(www).toBe(challenge());
    }
  });

  test('a token without the required scope: 403 insufficient_scope naming it, on both revisions and the stream', async () => {
    const token = await idp.clientCredentials('svc', url, 'tools:admin');
    const expected = `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="mcp", resource_metadata="${prmUrl()}"`;
    const rev2026 = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: '{}' });
    expect(rev2026.status).toBe(403);
    expect(rev2026.headers.get('www-authenticate')).toBe(expected);
    const rev2025 = await post2025({ method: 'tools/list' }, bearer(token));
    expect([rev2025.status, rev2025.www]).toEqual([403, expected]);
    const sub = await subscribe(url, ['task_' + 'A'.repeat(32)], { headers: bearer(token) });
    expect(sub.status).toBe(403);
  });
});

describe('client credentials (JWT access tokens)', () => {
  test('a token for this resource: tools/list, and a task to completion', async () => {
    const token = await idp.clientCredentials('svc', url);
    const tools = (await call(url, 'tools/list', {}, { headers: bearer(token) })).tools.map((t: { name: string }) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['wait_and_echo', 'admin_echo']));
    const created = await call(
      url,
      'tools/call',
      { name: 'admin_echo', arguments: { text: 'hi', seconds: 0 } },
      { headers: bearer(token) },
    );
    const task = await untilTerminal(created.taskId, bearer(token));
    expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'hi' }] } });
    // nothing of the token reaches Temporal: not the token, not the user, not the issuer
    const history = JSON.stringify(await temporal.client.workflow.getHandle(created.taskId).fetchHistory());
    const description = await temporal.client.workflow.getHandle(created.taskId).describe();
    for (const secret of [token, token.split('.')[2], idp.issuer, '"svc"']) {
      expect(history).not.toContain(secret);
      expect(JSON.stringify(description.memo)).not.toContain(secret);
      expect(JSON.stringify(description.searchAttributes)).not.toContain(secret);
    }
    // and no token in the logs
    expect(serveOutput()).not.toContain(token.split('.')[2]);
  });

  test('per-tool scopes: a token without tools:admin does not see admin_echo, and calling it is 403 naming the scope', async () => {
    const token = await idp.clientCredentials('svc-narrow', url, 'mcp');
    const tools = (await call(url, 'tools/list', {}, { headers: bearer(token) })).tools.map((t: { name: string }) => t.name);
    expect(tools).toContain('wait_and_echo');
    expect(tools).not.toContain('admin_echo');
    const before = serveOutput().length;
    const rev2026 = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': 'tools/call',
        'mcp-name': 'admin_echo',
        ...bearer(token),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'admin_echo', arguments: { text: 'x', seconds: 0 }, _meta: meta() },
      }),
    });
    expect(rev2026.status).toBe(403);
    expect(rev2026.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="tool admin_echo needs scope tools:admin", scope="mcp tools:admin", resource_metadata="${prmUrl()}"`,
    );
    const legacyList = await post2025({ method: 'tools/list' }, bearer(token));
    expect(legacyList.status).toBe(200);
    expect(legacyList.text).toContain('wait_and_echo');
    expect(legacyList.text).not.toContain('admin_echo');
    const rev2025 = await post2025(
      { method: 'tools/call', params: { name: 'admin_echo', arguments: { text: 'x', seconds: 0 }, task: {} } },
      bearer(token),
    );
    expect(rev2025.status).toBe(403);
    expect(rev2025.www).toContain('scope="mcp tools:admin"');
    // refused before Temporal: no task was created (the server logs every task.created)
    expect(serveOutput().slice(before)).not.toContain('task.created');
  });

  test("the MCP SDK client's ClientCredentialsProvider authenticates from the 401, and steps up on the 403 by itself", async () => {
    const authProvider = new ClientCredentialsProvider({
      clientId: 'svc',
      clientSecret: 'svc-secret-0123456789',
      expectedIssuer: idp.issuer,
    });
    const client = new Client(
      { name: 'svc-client', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider, fetch: inRealmFetch }));
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('wait_and_echo');
    expect(listed).not.toContain('admin_echo'); // the 401 asked for `mcp`
    // 403 insufficient_scope → a new token with `mcp tools:admin` → the call is retried and runs
    const result = await client.callTool({ name: 'admin_echo', arguments: { text: 'stepped up', seconds: 0 } });
    expect(JSON.stringify(result)).toContain('stepped up');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('admin_echo');
    await client.close();
  });

  test('a static service token works alongside OAuth, with every scope', async () => {
    const tools = (await call(url, 'tools/list', {}, { headers: bearer(STATIC) })).tools.map((t: { name: string }) => t.name);
    expect(tools).toContain('admin_echo');
    const created = await call(
      url,
      'tools/call',
      { name: 'admin_echo', arguments: { text: 'ops', seconds: 0 } },
      { headers: bearer(STATIC) },
    );
    expect((await untilTerminal(created.taskId, bearer(STATIC))).status).toBe('completed');
  });
});

function meta() {
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL,
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };
}

describe('bad tokens never reach Temporal and never crash the server', () => {
  const claims = () => ({
    iss: idp.issuer,
    sub: 'mallory',
    aud: url,
    scope: 'mcp tools:admin',
    client_id: 'svc',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const refused = async (token: string, reason: RegExp) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: '{}' });
    expect(res.status).toBe(401);
    const www = res.headers.get('www-authenticate')!;
    expect(www).toContain(`resource_metadata="${prmUrl()}"`);
    expect(www).toMatch(reason);
  };

  test.each([
    ['three parts of garbage', () => 'abc.def.ghi', /malformed token/],
    ['a JWT whose header is not JSON', () => `${Buffer.from('not json').toString('base64url')}.e30.c2ln`, /malformed token/],
    ['an opaque token the issuer does not know', () => 'opaque-token-nobody-issued', /not active/],
    ['alg none', () => forgeNone(claims()), /algorithm is not allowed/],
    ['HS256 signed with the public key', () => forgeHs256WithPublicKey(k1, claims()), /algorithm is not allowed/],
    ['a key the issuer never published', () => forgeRs256(makeKey('intruder'), claims()), /unknown key/],
    ['a forged signature under the known kid', () => forgeRs256({ ...makeKey('k1'), kid: 'k1' }, claims()), /signature is invalid/],
    ['a token without exp', () => forgeRs256(k1, { ...claims(), exp: undefined }), /claim check failed|missing required "exp"/],
    ['a numeric sub', () => forgeRs256(k1, { ...claims(), sub: 1234 }), /subject \(sub\) is not a non-empty string/],
    ['an empty sub', () => forgeRs256(k1, { ...claims(), sub: '' }), /subject \(sub\) is not a non-empty string/],
    [
      'an iat an hour ahead',
      () => forgeRs256(k1, { ...claims(), iat: Math.floor(Date.now() / 1000) + 3600 }),
      /issued in the future \(iat\)/,
    ],
  ])('%s: 401', async (_label, token, reason) => {
    await refused(token(), reason);
  });

  test.each([
    ['Bearer with no token', 'Bearer '],
    ['two tokens', 'Bearer a.b.c d.e.f'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a 8 KB token', `Bearer ${'x'.repeat(8192)}`],
  ])('%s: 401 with the challenge', async (_label, authorization) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${prmUrl()}"`);
  });

  test('an expired token: 401 (after exp plus the configured skew)', async () => {
    const token = await idp.clientCredentials('svc-short', url);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
    await sleep(3_500); // 2 s lifetime + 1 s skew
    await refused(token, /token expired/);
  });

  test('a token for another resource (wrong aud): 401, no passthrough', async () => {
    await refused(await idp.clientCredentials('svc', 'https://other.example.com/mcp'), /not issued for this resource/);
    await refused(await idp.clientCredentials('svc-opaque', 'https://other.example.com/mcp'), /not issued for this resource/);
  });

  test('a token of another issuer with the same keys (wrong iss): 401', async () => {
    const other = await startIdentityProvider([k1]);
    try {
      await refused(await other.clientCredentials('svc', url), /issuer is not trusted/);
    } finally {
      await other.stop();
    }
  });

  test('the server still serves after all of them', async () => {
    const token = await idp.clientCredentials('svc', url);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
  });
});

describe('opaque tokens by introspection (RFC 7662)', () => {
  test('an opaque token is introspected: the caller is its client, a task runs', async () => {
    const token = await idp.clientCredentials('svc-opaque', url);
    expect(token.split('.')).toHaveLength(1);
    const created = await call(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'opaque', seconds: 0 } },
      { headers: bearer(token) },
    );
    expect((await untilTerminal(created.taskId, bearer(token))).status).toBe('completed');
  });
});

describe('key rotation', () => {
  test('a rotated-in key works without a restart, a removed key stops working', async () => {
    const k2 = makeKey('k2');
    const old = await idp.clientCredentials('svc', url);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(old) })).status).toBe(200);
    await idp.restart([k2, k1]); // k2 signs now, k1 still published
    const rotated = await idp.clientCredentials('svc', url);
    expect(JSON.parse(Buffer.from(rotated.split('.')[0], 'base64url').toString()).kid).toBe('k2');
    await sleep(400); // past the refetch cooldown
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(rotated) })).status).toBe(200);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(old) })).status).toBe(200);
    await idp.restart([k2]); // k1 withdrawn
    await sleep(400);
    // an unknown kid makes the server fetch the set again: from then on k1 is gone
    const probe = forgeRs256(makeKey('k3'), { iss: idp.issuer });
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(probe) })).status).toBe(401);
    const res = await rpc(url, 'tools/list', {}, { headers: bearer(old) });
    expect(res.status).toBe(401);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(rotated) })).status).toBe(200);
    await idp.restart([k1]); // back to the first key for the other tests
    await sleep(400);
  });
});

/** Connects the SDK client; on the 401 it runs the authorization flow, then connects again with the tokens. */
async function authorizedClient(provider: HeadlessOAuthProvider): Promise<Client> {
  const make = () =>
    new Client({ name: 'oauth-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } });
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: inRealmFetch });
  let client = make();
  try {
    await client.connect(transport);
    return client;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  await transport.finishAuth(provider.callback!);
  transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: inRealmFetch });
  client = make();
  await client.connect(transport);
  return client;
}

describe('authorization code + PKCE, from the 401, by the MCP SDK client', () => {
  test('discovery → registration → login → token → tools/call → a task to completion', async () => {
    const provider = new HeadlessOAuthProvider('alice');
    const client = await authorizedClient(provider);
    expect(provider.authorizations).toBe(1);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('wait_and_echo');
    expect(tools).not.toContain('admin_echo'); // the 401 asked for `mcp` only
    const claims = JSON.parse(Buffer.from(provider.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'alice', aud: url, iss: idp.issuer });
    // the official Tasks client on the authorized connection runs a task to completion
    const { session, close } = taskSessionOf(client, url, { headers: bearer(provider.accessToken) });
    const execution = await session.callTool('wait_and_echo', { text: 'for alice', seconds: 1 });
    const { outcome } = await execution.settle();
    expect((resultFromTaskOutcome(outcome) as any).content[0].text).toBe('for alice');
    await close();
  });

  test('scope step-up: the 403 naming tools:admin makes the client authorize again for it, then the call passes', async () => {
    const provider = new HeadlessOAuthProvider('alice');
    const client = await authorizedClient(provider);
    const call403 = client.callTool({ name: 'admin_echo', arguments: { text: 'x', seconds: 0 } });
    await expect(call403).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizations).toBe(2);
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: inRealmFetch });
    await transport.finishAuth(provider.callback!);
    expect((provider.tokens() as { scope?: string })?.scope?.split(' ').sort()).toEqual(['mcp', 'tools:admin']);
    const again = new Client(
      { name: 'oauth-test', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    await again.connect(transport);
    expect((await again.listTools()).tools.map((t) => t.name)).toContain('admin_echo');
    await again.close();
    await client.close();
  });
});

test("a task made under a scope the user has since lost stays the owner's to read and cancel", async () => {
  const admin = new HeadlessOAuthProvider('frank');
  const client = await authorizedClient(admin);
  await expect(client.callTool({ name: 'admin_echo', arguments: { text: 'x', seconds: 0 } })).rejects.toBeInstanceOf(UnauthorizedError);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: admin });
  await transport.finishAuth(admin.callback!); // stepped up to tools:admin
  await client.close();
  const created = await call(
    url,
    'tools/call',
    { name: 'admin_echo', arguments: { text: 'long', seconds: 60 } },
    { headers: bearer(admin.accessToken) },
  );
  const narrow = new HeadlessOAuthProvider('frank', admin); // same user, same client, a new login for `mcp` only
  (await authorizedClient(narrow)).close();
  expect(JSON.parse(Buffer.from(narrow.accessToken.split('.')[1], 'base64url').toString()).scope).toBe('mcp');
  expect((await call(url, 'tasks/get', { taskId: created.taskId }, { headers: bearer(narrow.accessToken) })).status).toBe('working');
  await call(url, 'tasks/cancel', { taskId: created.taskId }, { headers: bearer(narrow.accessToken) });
  expect((await untilTerminal(created.taskId, bearer(narrow.accessToken))).status).toBe('cancelled');
  // but a new call of the tool is refused
  const again = await rpc(
    url,
    'tools/call',
    { name: 'admin_echo', arguments: { text: 'x', seconds: 0 } },
    { headers: bearer(narrow.accessToken) },
  );
  expect(again.status).toBe(403);
});

describe('tasks bind to the user', () => {
  const unknown = 'task_' + 'B'.repeat(32);
  const foreign = async (taskId: string, token: string) => {
    const mine = await rpc(url, 'tasks/get', { taskId }, { headers: bearer(token) });
    const none = await rpc(url, 'tasks/get', { taskId: unknown }, { headers: bearer(token) });
    expect(mine.body.error).toEqual({ ...none.body.error });
    expect(mine.body.error.code).toBe(-32602);
  };

  test('one client acting for two users keeps their tasks apart; each sees its own', async () => {
    const alice = new HeadlessOAuthProvider('alice');
    (await authorizedClient(alice)).close();
    const bob = new HeadlessOAuthProvider('bob', alice); // the same registered client, another user
    (await authorizedClient(bob)).close();
    const aliceClaims = JSON.parse(Buffer.from(alice.accessToken.split('.')[1], 'base64url').toString());
    const bobClaims = JSON.parse(Buffer.from(bob.accessToken.split('.')[1], 'base64url').toString());
    expect(bobClaims.client_id).toBe(aliceClaims.client_id);
    const created = await call(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'secret', seconds: 30 } },
      { headers: bearer(alice.accessToken) },
    );
    await foreign(created.taskId, bob.accessToken);
    expect((await call(url, 'tasks/get', { taskId: created.taskId }, { headers: bearer(alice.accessToken) })).taskId).toBe(created.taskId);
    const cancel = await rpc(url, 'tasks/cancel', { taskId: created.taskId }, { headers: bearer(bob.accessToken) });
    expect(cancel.body.error.code).toBe(-32602);
    expect((await call(url, 'tasks/get', { taskId: created.taskId }, { headers: bearer(alice.accessToken) })).status).toBe('working');
    await call(url, 'tasks/cancel', { taskId: created.taskId }, { headers: bearer(alice.accessToken) });
  });

  test('the same user through two clients: apart by default (user-and-client binding)', async () => {
    const viaA = new HeadlessOAuthProvider('carol');
    (await authorizedClient(viaA)).close();
    const viaB = new HeadlessOAuthProvider('carol');
    (await authorizedClient(viaB)).close();
    const created = await call(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 'c', seconds: 0 } },
      { headers: bearer(viaA.accessToken) },
    );
    await foreign(created.taskId, viaB.accessToken);
  });

  test('two service clients (client credentials) are two principals', async () => {
    const created = await call(
      url,
      'tools/call',
      { name: 'wait_and_echo', arguments: { text: 's', seconds: 0 } },
      { headers: bearer(await idp.clientCredentials('svc', url)) },
    );
    await foreign(created.taskId, await idp.clientCredentials('svc2', url));
  });
});

test('the logs name why tokens were refused, and hold no token', () => {
  const out = serveOutput();
  expect(out).toContain('"event":"auth.refused"');
  expect(out).toContain('token signed by an unknown key');
  expect(out).not.toMatch(/eyJ[\w-]{10,}\.eyJ[\w-]{10,}/); // no JWT
  expect(out).not.toContain(STATIC);
  expect(out).not.toContain('opaque-token-nobody-issued');
});
