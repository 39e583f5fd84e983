/**
 * The task card over the wire (the page itself runs in test/clients/task-card.test.ts): the UI
 * resource, the tools that name it, and results that are the same whether or not a client
 * declares MCP Apps (tools' `_meta.ui` is the only thing the card adds; hosts without Apps ignore it).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import crypto from 'node:crypto';
import { inRealmFetch, PROTOCOL } from '../support/mcp';
import { useStack } from '../support/stack';

const CARD = 'ui://mcp-temporal-tasks/task-card';
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const stack = useStack({ config: { handleWaitMs: 10_000 } });

async function client(opts: { apps: boolean; url?: string }): Promise<Client> {
  const c = new Client(
    { name: opts.apps ? 'apps-host' : 'plain', version: '1.0.0' },
    { capabilities: opts.apps ? { extensions: UI } : {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(opts.url ?? stack.url), { fetch: inRealmFetch }));
  return c;
}

const cardOf = (tool: { _meta?: Record<string, any> }) => tool._meta?.ui?.resourceUri;

test('tools whose result can be a task, and the task tools that follow it, name the card; others do not', async () => {
  const { tools } = await (await client({ apps: true })).listTools();
  const named = new Map(tools.map((t) => [t.name, cardOf(t)]));
  for (const name of ['approve_expense', 'provision_environment', 'task_wait', 'task_respond', 'task_cancel'])
    expect(named.get(name)).toBe(CARD);
  expect(tools.find((t) => t.name === 'task_wait')?._meta?.['ui/resourceUri']).toBe(CARD); // the key older hosts read
  expect(named.get('greet')).toBeUndefined(); // never a task
});

test('the card is a text/html;profile=mcp-app resource: one inline script allowed by hash, no network origin', async () => {
  const c = await client({ apps: true });
  expect((await c.listResources()).resources).toContainEqual(expect.objectContaining({ uri: CARD, mimeType: 'text/html;profile=mcp-app' }));
  const [content] = (await c.readResource({ uri: CARD })).contents as Array<{ text: string; mimeType: string; _meta?: any }>;
  expect(content.mimeType).toBe('text/html;profile=mcp-app');
  expect(content._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(content.text)![1];
  expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'unsafe-inline'; img-src data:;/);
  expect(csp).not.toMatch(/https?:|connect-src|\*/);
  const scripts = [...content.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  expect(scripts).toHaveLength(1);
  expect(csp).toContain(`'sha256-${crypto.createHash('sha256').update(scripts[0]).digest('base64')}'`);
  expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  const config = JSON.parse(/id="card-config">([\s\S]*?)<\/script>/.exec(content.text)![1]);
  expect(config).toEqual({ wait: 'task_wait', respond: 'task_respond', cancel: 'task_cancel' }); // no Temporal UI configured
});

test('results are the same for a client that declares MCP Apps and one that does not', async () => {
  const [apps, plain] = await Promise.all([client({ apps: true }), client({ apps: false })]);
  const call = (c: Client, name: string, args: object) => c.callTool({ name, arguments: args as Record<string, unknown> });
  const echo = { text: 'hi', seconds: 0 };
  expect(await call(plain, 'wait_and_echo', echo)).toEqual(await call(apps, 'wait_and_echo', echo));
  const expense = { amount: 5, description: 'lunch' };
  const [a, p] = await Promise.all([call(apps, 'approve_expense', expense), call(plain, 'approve_expense', expense)]);
  const ids = (r: any) => r.structuredContent.taskId as string;
  expect(JSON.parse(JSON.stringify(p).replaceAll(ids(p), 'ID'))).toEqual(JSON.parse(JSON.stringify(a).replaceAll(ids(a), 'ID')));
  expect(JSON.stringify(p)).not.toMatch(/"ui"|ui\/resourceUri|mcp-app/);
  for (const r of [a, p]) await call(plain, 'task_cancel', { taskId: ids(r) });
});

test('without task handles there is no card: nothing could follow a task', async () => {
  const { url } = await stack.serve({ config: { taskHandles: false } });
  const c = await client({ apps: true, url });
  const { tools } = await c.listTools();
  expect(tools.filter((t) => cardOf(t))).toEqual([]);
  await expect(c.readResource({ uri: CARD })).rejects.toThrow();
});
