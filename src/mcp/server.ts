import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Client } from '@temporalio/client';
import { parseServerConfig, type ServerConfig, type ServerConfigInput } from './config';
import { SEARCH_ATTRIBUTES } from '../contract';
import { createMcpEndpoint, listenHttp, MCP_PATH, type Readiness, type RunningHttpServer } from './http/http-server';
import { ResourceServer } from './auth/oauth-resource-server';
import { REVISIONS } from './revisions';
import { createServerFactory, SERVER_NAME } from './server-factory';
import type { McpContext } from './context';
import { TaskHandles } from './task-handles/task-handles';
import { TaskCard } from './task-card';
import { TaskListeners } from './task-listeners';
import { hasSearchAttributes, namespaceRetentionMs, TaskWatcher, TemporalTaskStore } from '../tasks';
import { PolledTasks } from '../tasks';
import type { ToolDefinition } from '../tool-definition';
import { ToolRegistry } from './core/tool-registry';
import { WatchLimits } from '../tasks';
import { configureMetrics } from '../tasks/metrics';
import { type ExtraMetrics, listenMetrics } from './http/metrics-http';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json is outside the compiled tree
const VERSION: string = require('../../package.json').version;

export interface McpTasksServerOptions extends ServerConfigInput {
  /** A Temporal client (yours: any connection, namespace, data converter). */
  client: Client;
  /** The tools; each call of one starts its workflow on `taskQueue`. */
  tools: ToolDefinition[];
  /**
   * Bearer-token verification of your own (static tokens, or any OAuthTokenVerifier); combines
   * with `oauth` (this verifier is tried first).
   */
  tokenVerifier?: OAuthTokenVerifier;
  log?: (message: string) => void;
}

export interface McpTasksServer {
  /** A fetch-style handler (Hono, Next.js, workers, Bun, ...): mount it at your MCP path. */
  fetch(request: Request): Promise<Response>;
  /**
   * Node's http, at /mcp on `host`:`port` (options first, then the configured ones), with
   * GET /healthz (liveness: 200 while it serves) and /readyz (`ready()`, and `alsoReady` when
   * given, e.g. the poller check of a worker in the same process: 200, or 503 with the reason).
   */
  listen(at?: {
    host?: string;
    port?: number;
    alsoReady?: () => Promise<Readiness>;
    extraMetrics?: ExtraMetrics;
  }): Promise<RunningHttpServer>;
  /** Readiness: whether Temporal answers now (its namespace is described within 3 s). */
  ready(): Promise<Readiness>;
  /** MCP over stdin/stdout, for desktop clients; resolves when the client closes stdin. */
  serveStdio(): Promise<void>;
  /** Where the tasks live: Temporal, through this client. */
  store: TemporalTaskStore;
  config: ServerConfig;
  /** Stops serving; the Temporal client stays yours to close. */
  close(): Promise<void>;
}

/**
 * The MCP server side: every task-augmented tools/call starts the tool's workflow, tasks/* read,
 * answer and cancel it. Stateless itself (every task lives in Temporal), so any number of
 * replicas answer any task.
 */
export async function createMcpTasksServer(options: McpTasksServerOptions): Promise<McpTasksServer> {
  const { client, tools, tokenVerifier, log = console.error, ...settings } = options;
  const config = parseServerConfig(settings, {});
  const facts = await namespaceFacts(client, config, log);
  const { ttlMs, searchAttributes } = facts ?? { ttlMs: config.ttlMs, searchAttributes: false };
  if ((tokenVerifier || config.oauth) && !config.ownerKey)
    log('ownerKey (MCP_OWNER_KEY) is not set: task owners are stored as an unkeyed hash; set the same key on every replica');
  const registry = new ToolRegistry(tools);
  const auth = new ResourceServer({
    oauth: config.oauth,
    tokenVerifier,
    toolScopes: tools.flatMap((t) => t.scopes ?? []),
    mcpPath: MCP_PATH,
    resourceName: SERVER_NAME,
  });
  if (config.oauth) void auth.warmUp(log);
  const scoped = tools.filter((t) => t.scopes?.length).map((t) => t.name);
  if (scoped.length && !auth.enabled)
    log(`tools ${scoped.join(', ')} name OAuth scopes, but authentication is off: the scopes are not checked`);
  const store = new TemporalTaskStore(client, { ...config, ttlMs, searchAttributes }, registry);
  const watcher = new TaskWatcher(client, store, config.temporalTimeoutMs);
  const polled = config.watchPolledTasks
    ? new PolledTasks(store, watcher, { ...config, keepMs: Math.max(POLLED_KEEP_MIN_MS, 3 * config.pollIntervalMs) })
    : undefined;
  const mcp: McpContext = {
    config,
    serverInfo: { name: SERVER_NAME, version: VERSION },
    registry,
    store,
    watcher,
    reader: polled ?? store,
    limits: new WatchLimits(config),
    toolScopes: auth.scopes,
    listing: (!!tokenVerifier || !!config.oauth) && searchAttributes,
    inputRefused: new TaskListeners(),
  };
  // before anything starts: a user tool named like a task tool is refused here
  const handles = new TaskHandles(
    mcp,
    tools.map((t) => t.name),
  );
  const recheck = facts ? undefined : recheckNamespaceFacts(client, config, store, log);
  const card = config.taskHandles ? new TaskCard(config, handles.names, client.options.namespace) : undefined;
  const factory = createServerFactory(mcp, handles, card);
  // each revision's HTTP handler in front of the SDK's, for its own requests
  // (2025: input answers POSTed as responses; 2026: subscriptions/listen)
  const fronts = REVISIONS.flatMap((r) => (r.front ? [{ sdkEra: r.sdkEra, ...r.front(mcp) }] : []));
  const inFront = Object.fromEntries(fronts.map((f) => [f.sdkEra, f.serve]));
  const endpoint = createMcpEndpoint(factory, { ...config, auth: auth.enabled ? auth : undefined, inFront });
  const ready = () => temporalReadiness(client);
  configureMetrics({ enabled: config.metrics, temporalUp: async () => (await ready()).ok });
  const readyWith = (also?: () => Promise<Readiness>) => async (): Promise<Readiness> => {
    const mine = await ready();
    return mine.ok && also ? also() : mine;
  };
  return {
    fetch: endpoint.fetch,
    listen: async (at = {}) => {
      // metrics on a port of their own are not served on the MCP port
      const ownPort = config.metrics && config.metricsPort !== undefined;
      const onMcpPort = config.metrics && !ownPort ? { extra: at.extraMetrics } : undefined;
      const mcpAt = { host: at.host ?? config.host, port: at.port ?? config.port, ready: readyWith(at.alsoReady), metrics: onMcpPort };
      const running = await listenHttp(endpoint, { ...config, ...mcpAt });
      if (!ownPort) return running;
      const own = await listenMetrics(config.metricsHost, config.metricsPort!, at.extraMetrics);
      return { ...running, metricsUrl: own.url, close: () => Promise.all([running.close(), own.close()]).then(() => undefined) };
    },
    ready,
    serveStdio: () =>
      new Promise<void>((resolve) => {
        process.stdin.once('end', resolve);
        serveStdio(factory, { onerror: (err) => log(`stdio: ${err.message}`) });
      }),
    store,
    config,
    close: () => {
      if (recheck) clearInterval(recheck);
      store.close();
      polled?.close();
      for (const front of fronts) front.close?.();
      watcher.stopAll();
      return endpoint.close();
    },
  };
}

/** Temporal was down at start: read the namespace again until it answers, then the store uses what it says. */
function recheckNamespaceFacts(client: Client, config: ServerConfig, store: TemporalTaskStore, log: (m: string) => void) {
  const timer = setInterval(async () => {
    const facts = await namespaceFacts(client, config, () => undefined);
    if (!facts) return;
    clearInterval(timer);
    store.setNamespaceFacts(facts);
    log(`namespace read: ttlMs ${facts.ttlMs}, search attributes ${facts.searchAttributes ? 'registered' : 'not registered'}`);
  }, RECHECK_MS);
  timer.unref();
  return timer;
}

const RECHECK_MS = 5_000;
/** A polled task stays watched this long after its last read (or 3 poll intervals, if longer). */
const POLLED_KEEP_MIN_MS = 10_000;
const READY_DEADLINE_MS = 3_000;

/** Ready when Temporal describes the namespace in time: the call every task operation depends on. */
async function temporalReadiness(client: Client): Promise<Readiness> {
  const namespace = client.options.namespace;
  try {
    await client.withDeadline(Date.now() + READY_DEADLINE_MS, () => client.workflowService.describeNamespace({ namespace }));
    return { ok: true, namespace };
  } catch (err) {
    return { ok: false, namespace, reason: `Temporal does not answer DescribeNamespace: ${(err as Error).message}` };
  }
}

/** ttlMs never promises more than the namespace retention keeps; undefined when Temporal does not answer. */
async function namespaceFacts(client: Client, config: ServerConfig, log: (m: string) => void) {
  const names = SEARCH_ATTRIBUTES.map((k) => k.name);
  try {
    const retention = await client.withDeadline(Date.now() + 5000, () => namespaceRetentionMs(client));
    const searchAttributes = await client.withDeadline(Date.now() + 5000, () => hasSearchAttributes(client, names));
    const ttlMs = retention ? Math.min(config.ttlMs, retention) : config.ttlMs;
    if (ttlMs < config.ttlMs) log(`ttlMs capped to the namespace retention: ${ttlMs} ms`);
    if (!searchAttributes)
      log(
        `search attributes ${names.join(', ')} are not registered; tasks start without them, and running-task quotas (counted by McpOwner) are not enforced`,
      );
    return { ttlMs, searchAttributes };
  } catch (err) {
    log(`Temporal did not answer (${(err as Error).message}); serving anyway, requests will report it, the namespace is read again later`);
    return undefined;
  }
}
