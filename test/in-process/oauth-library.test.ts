/**
 * OAuth through the library options (`createMcpTasksServer({ oauth, tokenVerifier })`) and the
 * fetch-style handler, as a framework would mount it behind a proxy: the configured public
 * resource wins over the URL the request came in on. A real oidc-provider issues the tokens.
 */
import { Client } from '@temporalio/client';
import * as z from 'zod';
import { StaticTokenVerifier } from '../../src/mcp/auth/static-tokens';
import { createMcpTasksServer, type McpTasksServer } from '../../src/mcp/server';
import type { ToolDefinition } from '../../src/tool-definition';
import { makeKey, startIdentityProvider, stopIdentityProviders, type IdentityProvider } from '../support/identity-provider';
import { parseBody, PROTOCOL } from '../support/mcp';
import { startTestTemporal, type TestTemporal } from '../support/temporal';

const PUBLIC = 'https://mcp.example.com/mcp';
let temporal: TestTemporal;
let idp: IdentityProvider;
let server: McpTasksServer;

beforeAll(async () => {
  temporal = await startTestTemporal();
  idp = await startIdentityProvider([makeKey('k1')]);
  const tools: ToolDefinition[] = [
    { name: 'open_tool', description: 'no scope', inputSchema: z.object({}), taskMode: 'optional', workflowType: 'waitAndEcho' },
    {
      name: 'admin_tool',
      description: 'needs tools:admin',
      inputSchema: z.object({}),
      taskMode: 'optional',
      workflowType: 'waitAndEcho',
      scopes: ['tools:admin'],
    },
  ];
  server = await createMcpTasksServer({
    client: temporal.client as Client,
    tools,
    oauth: { issuer: idp.issuer, resource: PUBLIC, requiredScopes: ['mcp'], scopesSupported: ['reports'] },
    tokenVerifier: StaticTokenVerifier.parse('ops:static-token-0123456789', 'test'),
    ownerKey: 'an-owner-key-for-oauth-tests',
    log: () => undefined,
  });
});
afterAll(async () => {
  await server?.close();
  await stopIdentityProviders();
  await temporal?.stop();
});

const mcp = (headers: Record<string, string> = {}, method = 'tools/list') =>
  server.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        host: 'localhost',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL,
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }),
  );
const names = async (res: Response) => {
  const body = parseBody(await res.text());
  return (body.result.tools.map((t: { name: string }) => t.name) as string[]).filter((n) => !n.startsWith('task_')); // not the task tools
};

test('the metadata and the challenge name the configured public resource', async () => {
  const prm = await server.fetch(
    new Request('http://localhost/.well-known/oauth-protected-resource/mcp', { headers: { host: 'localhost' } }),
  );
  expect(await prm.json()).toEqual({
    resource: PUBLIC,
    authorization_servers: [idp.issuer],
    scopes_supported: ['mcp', 'reports', 'tools:admin'],
    bearer_methods_supported: ['header'],
    resource_name: 'mcp-temporal-tasks',
  });
  const res = await mcp();
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toContain(
    'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
  );
});

test('a token for the public resource is accepted; one for the internal URL is not (no passthrough)', async () => {
  const good = await idp.clientCredentials('svc', PUBLIC, 'mcp');
  const res = await mcp({ authorization: `Bearer ${good}` });
  expect(res.status).toBe(200);
  expect(await names(res)).toEqual(['open_tool']); // tools:admin not granted
  const internal = await idp.clientCredentials('svc', 'http://localhost/mcp', 'mcp');
  expect((await mcp({ authorization: `Bearer ${internal}` })).status).toBe(401);
});

test('with tools:admin the scoped tool is listed; a static service token sees everything', async () => {
  const admin = await idp.clientCredentials('svc', PUBLIC, 'mcp tools:admin');
  expect(await names(await mcp({ authorization: `Bearer ${admin}` }))).toEqual(['open_tool', 'admin_tool']);
  expect(await names(await mcp({ authorization: 'Bearer static-token-0123456789' }))).toEqual(['open_tool', 'admin_tool']);
});
