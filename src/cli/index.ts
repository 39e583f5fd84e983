#!/usr/bin/env node
import { Command, Option } from 'commander';
import path from 'node:path';
import { loadServedTools, loadToolsModule, type ToolsModule, ToolsModuleError } from './tools-module';
import { ToolsFileError } from '../mcp/workflow-tools';
import { releaseHeldMemory } from './memory';
import { addWorkerConfigOptions, hostPort, parseWorkerConfig, workerTuning } from './worker-config';
import { addVersioningOptions, parseVersioning, setCurrentVersion } from './worker-versioning';
import { checkWorkerHealth, startHealthServer } from './worker-health';
import { ConfigError, ENV_VARS, parseServerConfig, parseSettings, ServerConfig, ServerConfigSchema } from '../mcp/config';
import { connectClient, LOG_LEVELS, setLogLevel, type TemporalSettings, temporalSettings } from '../tasks';
import { parseCliSettings } from './cli-settings';
import { StaticTokenVerifier } from '../mcp/auth/static-tokens';
import { addOAuthOptions, oauthFlags } from '../mcp/auth/oauth-cli';
import type { Readiness } from '../mcp/http/http-server';
import { createMcpTasksServer } from '../mcp/server';
import { findTemporalCli, temporalCliVersion } from './cli-binary';
import { startDevServer } from './dev-server';
import { listenForStop } from './stop-signals';

const program = new Command('mcp-temporal-tasks')
  .description('An MCP server whose tool calls are durable Temporal workflows')
  .addOption(new Option('--log-level <level>', 'JSON log level on stderr (MCP_LOG_LEVEL, default info)').choices(LOG_LEVELS))
  .hook('preAction', (cmd) => {
    setLogLevel(parseCliSettings(cmd.opts()).logLevel);
    releaseHeldMemory(); // long-running commands give back what a burst of load made V8 hold
  });

function serverOptions(cmd: Command, defaultPort: string): Command {
  cmd
    .option('--host <host>', 'address the MCP endpoint binds to (MCP_HOST)')
    .option('--port <port>', `MCP endpoint port, 0 picks a free one (MCP_PORT, default ${defaultPort})`)
    .option('--task-queue <name>', 'Temporal task queue (MCP_TASK_QUEUE, default mcp-tasks)')
    .option('--ttl-ms <ms>', 'how long a task stays readable (MCP_TASK_TTL_MS; capped by namespace retention)')
    .option('--poll-interval-ms <ms>', 'pollIntervalMs advised to clients (MCP_POLL_INTERVAL_MS)')
    .option('--temporal-timeout-ms <ms>', 'bound on each Temporal call (MCP_TEMPORAL_TIMEOUT_MS, default 10000)')
    .option('--history-limit <events>', 'history length after which long tools continue as new (MCP_HISTORY_LIMIT)')
    .option('--max-subscribed-tasks <n>', 'tasks subscribed at once on this replica (MCP_MAX_SUBSCRIBED_TASKS, default 10000)')
    .option(
      '--max-subscribed-tasks-per-caller <n>',
      'tasks one caller subscribes at once (MCP_MAX_SUBSCRIBED_TASKS_PER_CALLER, default 1000)',
    )
    .option('--max-json-depth <n>', 'deepest JSON nesting accepted in a request body (MCP_MAX_JSON_DEPTH, default 64)')
    .option(
      '--max-connections <n>',
      'open HTTP connections at most; at the cap the oldest idle one is closed (MCP_MAX_CONNECTIONS, default 4096 or the open-file limit less 128)',
    )
    .option(
      '--request-timeout-ms <ms>',
      "time a request's headers and body have to arrive, else 408 (MCP_REQUEST_TIMEOUT_MS, default 30000)",
    )
    .option(
      '--max-running-tasks-per-caller <n>',
      'running tasks one caller owns at once, counted in Temporal; 0: no cap (MCP_MAX_RUNNING_TASKS_PER_CALLER, default 1000)',
    )
    .option(
      '--max-running-tasks <n>',
      "running tasks of this server's tools at once, counted in Temporal; 0: no cap (MCP_MAX_RUNNING_TASKS, default 10000)",
    )
    .option('--quota-lag-ms <ms>', 'starts this recent are added to the visibility count (MCP_QUOTA_LAG_MS, default 3000)')
    .option(
      '--sync-run-timeout-ms <ms>',
      'execution timeout of a synchronous run that gets no task handle (MCP_SYNC_RUN_TIMEOUT_MS, default 1800000)',
    )
    .option(
      '--stuck-cancel-grace-ms <ms>',
      'a cancelled task whose workflow task still fails this long after the cancel request is terminated (MCP_STUCK_CANCEL_GRACE_MS, default 60000)',
    )
    .option('--strict-headers', 'refuse requests without Mcp-Method/Mcp-Name (MCP_STRICT_HEADERS=true; default: take them from the body)')
    .addOption(
      new Option(
        '--lenient-headers',
        'take a missing Mcp-Method/Mcp-Name from the body (the default; overrides MCP_STRICT_HEADERS=true)',
      ).hideHelp(),
    )
    .option('--no-task-handles', 'callers without Tasks get -32021 / wait unboundedly, as before handles (MCP_TASK_HANDLES=false)')
    .option(
      '--handle-wait-ms <ms>',
      'how long a call without Tasks waits before answering a task handle (MCP_HANDLE_WAIT_MS, default 20000)',
    )
    .option(
      '--answer-within-ms <ms>',
      'input requests unanswered this long end their task failed, its undos run (MCP_ANSWER_WITHIN_MS, default: the task ttl, 0: no limit)',
    )
    .option(
      '--anonymous-answer-within-ms <ms>',
      'the same for tasks of callers without authentication (MCP_ANONYMOUS_ANSWER_WITHIN_MS, default 3600000, when shorter; 0: as --answer-within-ms)',
    )
    .option(
      '--retry-grace-ms <ms>',
      'a call without Tasks dropped before its answer keeps its task this long; an identical retry attaches to it (MCP_RETRY_GRACE_MS, default 600000, 0: off)',
    )
    .option('--task-tools-prefix <prefix>', 'name prefix of the task_wait/respond/cancel/list tools (MCP_TASK_TOOLS_PREFIX, default task_)')
    .option('--no-watch-polled-tasks', 'read every tasks/get from Temporal instead of watching polled tasks (MCP_WATCH_POLLED_TASKS=false)')
    .option('--required-tools-need-tasks', 'keep -32021 for `required` tools called without Tasks (MCP_REQUIRED_TOOLS_NEED_TASKS=true)')
    .option('--allowed-host <host...>', 'extra Host names accepted (DNS rebinding protection)')
    .option('--allowed-origin <hostname...>', 'extra Origin hostnames accepted (no scheme or port), e.g. app.example.com')
    .option('--auth-tokens-file <file>', 'require bearer tokens: "principal:token" per line (or MCP_AUTH_TOKENS="p:t,p2:t2")')
    .addOption(toolsModuleOption())
    .addOption(toolsFileOption());
  return addOAuthOptions(cmd);
}

/** `serve`/`dev`: workflows of any SDK as tools, from a JSON tools file (alongside --tools-module). */
function toolsFileOption(): Option {
  return new Option('--tools <file>', 'JSON tools file: workflows of any SDK, started by type name on their task queue (MCP_TOOLS_FILE)');
}

function toolsModuleOption(): Option {
  return new Option('--tools-module <file>', 'module exporting `tools` (and workflowsPath, activities for the worker) (MCP_TOOLS_MODULE)');
}

function configFrom(opts: Record<string, unknown>): ServerConfig {
  return parseServerConfig({
    host: opts.host,
    port: opts.port,
    taskQueue: opts.taskQueue,
    ttlMs: opts.ttlMs,
    pollIntervalMs: opts.pollIntervalMs,
    temporalTimeoutMs: opts.temporalTimeoutMs,
    historyLimit: opts.historyLimit,
    maxSubscribedTasks: opts.maxSubscribedTasks,
    maxSubscribedTasksPerCaller: opts.maxSubscribedTasksPerCaller,
    maxJsonDepth: opts.maxJsonDepth,
    maxConnections: opts.maxConnections,
    requestTimeoutMs: opts.requestTimeoutMs,
    maxRunningTasksPerCaller: opts.maxRunningTasksPerCaller,
    maxRunningTasks: opts.maxRunningTasks,
    quotaLagMs: opts.quotaLagMs,
    syncRunTimeoutMs: opts.syncRunTimeoutMs,
    stuckCancelGraceMs: opts.stuckCancelGraceMs,
    answerWithinMs: opts.answerWithinMs,
    anonymousAnswerWithinMs: opts.anonymousAnswerWithinMs,
    strictHeaders: opts.strictHeaders ? true : opts.lenientHeaders ? false : undefined,
    // commander defaults a --no-x flag to true: only an explicit --no-task-handles overrides the environment
    taskHandles: opts.taskHandles === false ? false : undefined,
    handleWaitMs: opts.handleWaitMs,
    retryGraceMs: opts.retryGraceMs,
    taskToolsPrefix: opts.taskToolsPrefix,
    requiredToolsNeedTasks: opts.requiredToolsNeedTasks ? true : undefined,
    watchPolledTasks: opts.watchPolledTasks === false ? false : undefined,
    allowedHosts: opts.allowedHost,
    allowedOrigins: opts.allowedOrigin,
    oauth: oauthFlags(opts),
  });
}

serverOptions(program.command('dev').description('embedded Temporal dev server (SQLite, Web UI) + worker + MCP endpoint'), '3000')
  .option('--db-file <file>', 'SQLite file of the dev server', path.join('.data', 'temporal.db'))
  .option('--temporal-port <port>', 'Temporal frontend port', '7233')
  .option('--ui-port <port>', 'Temporal Web UI port', '8233')
  .addOption(
    new Option(
      '--sqlite-synchronous <mode>',
      'SQLite (WAL) durability: full syncs every commit; normal is faster, and a power loss may drop the last commits',
    )
      .choices(['full', 'normal'])
      .default('full'),
  )
  .action(async (opts) => {
    const onStop = listenForStop();
    const config = configFrom(opts);
    const tools = servedTools(opts);
    const dev = await startDevServer({
      dbFile: opts.dbFile,
      host: '127.0.0.1',
      port: Number(opts.temporalPort),
      uiPort: Number(opts.uiPort),
      namespace: 'default',
      sqliteSynchronous: opts.sqliteSynchronous,
    });
    const settings = temporalSettings({ address: dev.address, namespace: 'default' });
    const { connectWorkerConnection, createWorker } = await workerSide();
    const workerConnection = await connectWorkerConnection(settings);
    // the embedded worker runs the tools module's workflows; a tools file's run on their own workers
    const worker = tools.module
      ? await createWorker({
          connection: workerConnection,
          namespace: settings.namespace,
          taskQueue: config.taskQueue,
          module: tools.module,
        })
      : undefined;
    const running = worker?.run();
    // /readyz of dev also needs its embedded worker polling
    const workerReady = worker ? async () => ({ ...(await checkWorkerHealth(worker, workerConnection)) }) : undefined;
    const mcp = await serveHttp(config, settings, tools, opts, workerReady);
    console.log(`MCP endpoint:     ${mcp.url}`);
    console.log(`Temporal UI:      ${dev.uiUrl}/namespaces/default/workflows`);
    console.log(`Temporal address: ${dev.address} (db ${opts.dbFile})`);
    onStop(async () => {
      await mcp.close();
      worker?.shutdown();
      await running;
      await workerConnection.close();
      await dev.stop();
    });
  });

/** The worker's modules, loaded only by the commands that run one: `serve` never loads @temporalio/worker (about 14 MB of RSS). */
async function workerSide() {
  return { ...(await import('./worker.js')), ...(await import('./worker-runtime.js')) };
}

/** The library's server on Node http, with its own Temporal client (closed with it). */
async function serveHttp(
  config: ServerConfig,
  settings: TemporalSettings,
  tools: ToolsModule,
  opts: Record<string, unknown>,
  alsoReady?: () => Promise<Readiness>,
) {
  const client = await connectClient(settings);
  const server = await createMcpTasksServer({ ...config, client, tools: tools.tools, tokenVerifier: tokenVerifierFrom(opts) });
  const http = await server.listen({ alsoReady });
  return {
    url: http.url,
    close: async () => {
      await server.close(); // open subscriptions end gracefully (their listen result is written)
      await new Promise((r) => setTimeout(r, 100)); // …and flushed before the connections are cut
      await http.close();
      await client.connection.close();
    },
  };
}

/** Bearer tokens from --auth-tokens-file or MCP_AUTH_TOKENS; none means no authentication. */
function tokenVerifierFrom(opts: Record<string, unknown>): StaticTokenVerifier | undefined {
  if (typeof opts.authTokensFile === 'string') return StaticTokenVerifier.fromFile(opts.authTokensFile);
  const { authTokens } = parseCliSettings(opts);
  return authTokens ? StaticTokenVerifier.parse(authTokens, 'MCP_AUTH_TOKENS') : undefined;
}

/** `serve`/`dev`: the tools module and/or tools file, from flags or MCP_TOOLS_MODULE / MCP_TOOLS_FILE. */
function servedTools(opts: Record<string, unknown>): ReturnType<typeof loadServedTools> {
  const { toolsModule, tools } = parseCliSettings(opts);
  return loadServedTools(toolsModule, tools);
}

serverOptions(program.command('serve').description('MCP endpoint only, on TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE'), '3000')
  .option('--stdio', 'serve MCP over stdin/stdout (desktop clients) instead of HTTP')
  .action(async (opts) => {
    const config = configFrom(opts);
    const tools = servedTools(opts);
    if (opts.stdio) {
      const client = await connectClient(temporalSettings());
      const server = await createMcpTasksServer({ ...config, client, tools: tools.tools });
      await server.serveStdio(); // stdout carries MCP: logs go to stderr
      await client.connection.close();
      process.exit(0);
    }
    const onStop = listenForStop();
    const mcp = await serveHttp(config, temporalSettings(), tools, opts);
    console.log(`MCP endpoint: ${mcp.url}`);
    onStop(() => mcp.close());
  });

addWorkerConfigOptions(
  addVersioningOptions(
    program
      .command('worker')
      .description('Temporal worker only, on TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE')
      .option('--task-queue <name>', 'Temporal task queue (MCP_TASK_QUEUE, default mcp-tasks)')
      .addOption(toolsModuleOption()),
  ),
).action(async (opts) => {
  const onStop = listenForStop();
  const production = parseWorkerConfig(opts);
  // the server's setting, through the same merge (flag, MCP_TASK_QUEUE, default)
  const taskQueue = parseSettings(
    {
      schema: ServerConfigSchema.pick({ taskQueue: true }),
      envVars: { taskQueue: ENV_VARS.taskQueue },
      title: 'Invalid worker configuration',
    },
    { taskQueue: opts.taskQueue },
  ).taskQueue;
  const versioning = parseVersioning(opts);
  const tools = loadToolsModule(parseCliSettings(opts).toolsModule);
  const metricsAddress = production.metricsPort ? hostPort(production.metricsHost, production.metricsPort) : undefined;
  const { connectWorkerConnection, createWorker, installWorkerRuntime } = await workerSide();
  installWorkerRuntime({ metricsBindAddress: metricsAddress });
  const settings = temporalSettings();
  const connection = await connectWorkerConnection(settings).catch((err: Error) => {
    throw new Error(`Temporal at ${settings.connectionOptions.address} (${settings.namespace}) does not answer: ${err.message}`);
  });
  const worker = await createWorker({
    connection,
    namespace: settings.namespace,
    taskQueue,
    module: tools,
    tuning: workerTuning(production),
    versioning,
  });
  const health =
    production.healthPort === undefined
      ? undefined
      : await startHealthServer(worker, connection, production.healthHost, production.healthPort);
  console.log(`worker polling task queue ${taskQueue} on ${settings.connectionOptions.address} (${settings.namespace})`);
  if (health) console.log(`worker health: ${health.url} (liveness), ${health.readyUrl} (readiness)`);
  if (metricsAddress) console.log(`worker metrics: http://${metricsAddress}/metrics`);
  if (versioning) console.log(`worker version ${versioning.deploymentName}.${versioning.buildId} (${versioning.behavior})`);
  const running = worker.run();
  if (versioning?.setCurrent) {
    // tasks reach a versioned worker only through its deployment's current (or ramping) version
    void setCurrentVersion(connection, settings.namespace, versioning).then(
      (outcome) => console.log(`worker version ${versioning.deploymentName}.${versioning.buildId}: ${outcome}`),
      (err: Error) => {
        console.error(`worker: ${err.message}`);
        process.exitCode = 1;
        worker.shutdown();
      },
    );
  }
  onStop(async () => {
    console.error(`worker: no new work; running activities have ${production.shutdownGrace} ms to finish`);
    worker.shutdown();
    await running;
    await health?.close();
    await connection.close();
  });
  await running;
});

program
  .command('doctor')
  .description('which Temporal CLI is found, whether the Temporal address answers, the namespace')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const report = await doctor();
    if (opts.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`Temporal CLI: ${report.cli ? `${report.cli.path} (${report.cli.source}) ${report.cli.version ?? ''}` : 'not found'}`);
      console.log(
        `Temporal:     ${report.temporal.address} ${report.temporal.reachable ? 'answers' : `does not answer: ${report.temporal.error}`}`,
      );
      console.log(`Namespace:    ${report.temporal.namespace}`);
    }
    process.exitCode = report.temporal.reachable ? 0 : 1;
  });

async function doctor() {
  const found = findTemporalCli();
  const cli = found ? { ...found, version: temporalCliVersion(found.path) } : null;
  const settings = temporalSettings();
  const temporal = {
    address: settings.connectionOptions.address,
    namespace: settings.namespace,
    reachable: false,
    error: undefined as string | undefined,
  };
  try {
    const { Connection } = await import('@temporalio/client');
    const connection = await Connection.connect({
      ...settings.connectionOptions,
      tls: settings.connectionOptions.tls as never,
      connectTimeout: 3000,
    });
    await connection.withDeadline(Date.now() + 3000, () => connection.workflowService.describeNamespace({ namespace: settings.namespace }));
    temporal.reachable = true;
    await connection.close();
  } catch (err) {
    temporal.error = (err as Error).message;
  }
  return { cli, temporal };
}

program.parseAsync().catch((err) => {
  console.error(
    err instanceof ConfigError || err instanceof ToolsModuleError || err instanceof ToolsFileError
      ? err.message
      : `error: ${(err as Error).message ?? err}`,
  );
  process.exit(2);
});
