/**
 * A host page of the card test's own (bundled for Chromium by esbuild): the MCP SDK's Client
 * (2026-07-28, no Tasks, the MCP Apps extension declared) finds a tool's UI resource, reads it,
 * renders it in a sandboxed iframe and connects it with ext-apps' AppBridge, which forwards the
 * card's tools/call to the server. The page's HTTP goes through node (`relayFetch`): the page's
 * origin is not one the server's CORS-less endpoint serves, and the relay changes no byte of MCP.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Relayed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

declare global {
  interface Window {
    relayFetch(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Relayed>;
    cardHost: typeof cardHost;
    /** Links the card asked the host to open. */
    openedLinks: string[];
  }
}

window.openedLinks = [];

const relayedFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  const body = typeof init.body === 'string' ? init.body : undefined;
  const r = await window.relayFetch(String(input), { method: init.method ?? 'GET', headers, body });
  return new Response(r.status === 202 || r.status === 204 ? null : r.body, { status: r.status, headers: r.headers });
};

const UI_EXTENSION = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

async function connect(url: string): Promise<Client> {
  const client = new Client(
    { name: 'card-test-host', version: '1.0.0' },
    { capabilities: { extensions: UI_EXTENSION }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: relayedFetch }));
  return client;
}

const cardHost = {
  /** Calls `name` as a model would, and shows its result in the tool's card (in #frame-<slot>); the result. */
  async call(url: string, name: string, args: Record<string, unknown>, slot: string): Promise<unknown> {
    const client = await connect(url);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === name);
    const uri = tool && getToolUiResourceUri(tool);
    if (!tool || !uri) throw new Error(`tool ${name} names no UI resource`);
    const resource = await client.readResource({ uri });
    const html = (resource.contents[0] as { text?: string }).text;
    if (!html) throw new Error(`${uri} has no text`);
    const iframe = document.createElement('iframe');
    iframe.id = `frame-${slot}`;
    iframe.sandbox.add('allow-scripts'); // no same origin: the card has no network and no storage of the host's
    document.getElementById('cards')!.append(iframe);
    const bridge = new AppBridge(
      client,
      { name: 'card-test-host', version: '1.0.0' },
      { serverTools: {}, openLinks: {} },
      { hostContext: { toolInfo: { tool } } },
    );
    bridge.onopenlink = async ({ url: link }) => {
      window.openedLinks.push(link);
      return {};
    };
    bridge.onsizechange = ({ height }) => {
      if (height) iframe.style.height = `${height}px`;
    };
    const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
    await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
    iframe.srcdoc = html;
    await initialized;
    await bridge.sendToolInput({ arguments: args });
    const result = await client.callTool({ name, arguments: args });
    await bridge.sendToolResult(result as never);
    return result;
  },
};

window.cardHost = cardHost;
