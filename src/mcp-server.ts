import type { McpServerFactory, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Client } from '@temporalio/client';
import type { ServerConfig } from './config';
import { RunningHttpServer, startHttpServer } from './mcp/http-server';
import { createServerFactory } from './mcp/server-factory';
import { SEARCH_ATTRIBUTES } from './tasks/search-attributes';
import { TemporalTaskStore } from './tasks/temporal-task-store';
import { connectClient, hasSearchAttributes, namespaceRetentionMs, TemporalSettings } from './temporal/connection';
import { buildRegistry } from './tools';

const VERSION: string = require('../package.json').version;

export interface McpServerExtras {
  /** Bearer-token verification (static tokens, or the SDK's OAuth resource-server verifier). */
  tokenVerifier?: OAuthTokenVerifier;
  log?: (message: string) => void;
}

export interface McpServerHandle extends RunningHttpServer {
  close(): Promise<void>;
}

/** The MCP endpoint over HTTP: stateless itself, every task lives in Temporal, so any replica answers any task. */
export async function startMcpServer(config: ServerConfig, temporal: TemporalSettings, extras: McpServerExtras = {}): Promise<McpServerHandle> {
  const { client, factory } = await taskServer(config, temporal, extras.log ?? console.error, !!extras.tokenVerifier);
  const http = await startHttpServer(factory, { ...config, tokenVerifier: extras.tokenVerifier });
  return {
    ...http,
    close: async () => {
      await http.close();
      await client.connection.close();
    },
  };
}

/** The same server over stdio, for desktop clients; resolves when the client closes stdin. */
export async function runMcpStdio(config: ServerConfig, temporal: TemporalSettings, log = console.error): Promise<void> {
  const { client, factory } = await taskServer(config, temporal, log, false);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    serveStdio(factory, { onerror: (err) => log(`stdio: ${err.message}`) });
  });
  await client.connection.close();
}

async function taskServer(config: ServerConfig, temporal: TemporalSettings, log: (m: string) => void, auth: boolean): Promise<{ client: Client; factory: McpServerFactory }> {
  const client = await connectClient(temporal);
  const { ttlMs, searchAttributes } = await namespaceFacts(client, config, log);
  if (auth && !config.ownerKey) log('MCP_OWNER_KEY is not set: task owners are stored as an unkeyed hash; set the same key on every replica');
  const store = new TemporalTaskStore(client, { ...config, ttlMs, searchAttributes });
  const factory = createServerFactory({ registry: buildRegistry(config), store, pollIntervalMs: config.pollIntervalMs, version: VERSION, listing: auth && searchAttributes });
  return { client, factory };
}

/** ttlMs never promises more than the namespace retention keeps; unknown when Temporal is down at start. */
async function namespaceFacts(client: Client, config: ServerConfig, log: (m: string) => void) {
  try {
    const retention = await client.withDeadline(Date.now() + 5000, () => namespaceRetentionMs(client));
    const searchAttributes = await client.withDeadline(Date.now() + 5000, () => hasSearchAttributes(client, SEARCH_ATTRIBUTES));
    const ttlMs = retention ? Math.min(config.ttlMs, retention) : config.ttlMs;
    if (ttlMs < config.ttlMs) log(`ttlMs capped to the namespace retention: ${ttlMs} ms`);
    if (!searchAttributes) log(`search attributes ${SEARCH_ATTRIBUTES.join(', ')} are not registered; tasks start without them`);
    return { ttlMs, searchAttributes };
  } catch (err) {
    log(`Temporal did not answer at start (${(err as Error).message}); serving anyway, requests will report it`);
    return { ttlMs: config.ttlMs, searchAttributes: false };
  }
}
