#!/usr/bin/env node
import { Command, Option } from 'commander';
import path from 'node:path';
import { loadToolsModule, type ToolsModule, ToolsModuleError } from './tools-module';
import { ToolsFileError } from '../mcp/workflow-tools';
import { limitHeapGrowth, limitWorkflowSemiSpace, releaseHeldMemory } from './memory';
import { addDevWorkerOptions, addWorkerConfigOptions, devWorkerTuning, hostPort, parseWorkerConfig, workerTuning } from './worker-config';
import { addVersioningOptions, parseVersioning, setCurrentVersion } from './worker-versioning';
import { checkWorkerHealth, startHealthServer } from './worker-health';
import { ConfigError, ENV_VARS, parseSettings, ServerConfig, ServerConfigSchema } from '../mcp/config';
import { connectClient, LOG_LEVELS, setLogLevel, type TemporalSettings, temporalSettings } from '../tasks';
import { parseCliSettings } from './cli-settings';
import { configFrom, servedTools, serverOptions, tokenVerifierFrom, toolsModuleOption } from './server-options';
import type { Readiness } from '../mcp/http/http-server';
import { createMcpTasksServer } from '../mcp/server';
import { findTemporalCli, temporalCliVersion } from './cli-binary';
import { startDevServer } from './dev-server';
import { listenForStop } from './stop-signals';
import { startTracing, type Tracing, tracingSettings } from './tracing';
import { embeddedSdkMetrics } from './sdk-metrics';
import { type ExtraMetrics, listenMetrics } from '../mcp/http/metrics-http';

const program = new Command('mcp-temporal-tasks')
  .description('An MCP server whose tool calls are durable Temporal workflows')
  .addOption(new Option('--log-level <level>', 'JSON log level on stderr (MCP_LOG_LEVEL, default info)').choices(LOG_LEVELS))
  .option(
    '--heap-growth-percent <percent>',
    "how far V8's heap may grow past its live objects before a full collection; 0: V8 decides, up to 4x (MCP_HEAP_GROWTH_PERCENT, default 30)",
  )
  .option(
    '--workflow-semi-space-mb <mb>',
    "the largest semi-space of V8's young generation in a worker's workflow threads; 0: V8 decides, 16 (MCP_WORKFLOW_SEMI_SPACE_MB, default 4)",
  )
  .hook('preAction', (cmd) => {
    const settings = parseCliSettings(cmd.opts());
    setLogLevel(settings.logLevel);
    limitHeapGrowth(settings.heapGrowthPercent); // before a worker starts its workflow threads
    limitWorkflowSemiSpace(settings.workflowSemiSpaceMb); // the same
    releaseHeldMemory(); // long-running commands give back what a burst of load made V8 hold
  });

addDevWorkerOptions(
  serverOptions(program.command('dev').description('embedded Temporal dev server (SQLite, Web UI) + worker + MCP endpoint'), '3000'),
)
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
    const tuning = devWorkerTuning(opts);
    const tools = servedTools(opts);
    const tracing = await tracingFromEnv(SERVICE_NAME);
    const dev = await startDevServer({
      dbFile: opts.dbFile,
      host: '127.0.0.1',
      port: Number(opts.temporalPort),
      uiPort: Number(opts.uiPort),
      namespace: 'default',
      sqliteSynchronous: opts.sqliteSynchronous,
    });
    const settings = temporalSettings({ address: dev.address, namespace: 'default' });
    const { connectWorkerConnection, createWorker, installWorkerRuntime } = await workerSide();
    const sdkMetrics = config.metrics ? await embeddedSdkMetrics() : undefined;
    installWorkerRuntime({ metricsBindAddress: sdkMetrics?.bindAddress });
    const workerConnection = await connectWorkerConnection(settings);
    // the embedded worker runs the tools module's workflows; a tools file's run on their own workers
    const worker = tools.module
      ? await createWorker({
          connection: workerConnection,
          namespace: settings.namespace,
          taskQueue: config.taskQueue,
          module: tools.module,
          tracing,
          tuning,
        })
      : undefined;
    const running = worker?.run();
    // /readyz of dev also needs its embedded worker polling
    const workerReady = worker ? async () => ({ ...(await checkWorkerHealth(worker, workerConnection)) }) : undefined;
    // the task card links tasks to the embedded UI unless another is named
    const mcp = await serveHttp({ ...config, temporalUiUrl: config.temporalUiUrl ?? dev.uiUrl }, settings, tools, opts, {
      alsoReady: workerReady,
      tracing,
      extraMetrics: sdkMetrics?.read,
    });
    console.log(`MCP endpoint:     ${mcp.url}`);
    console.log(`Temporal UI:      ${dev.uiUrl}/namespaces/default/workflows`);
    console.log(`Temporal address: ${dev.address} (db ${opts.dbFile})`);
    onStop(async () => {
      await mcp.close();
      worker?.shutdown();
      await running;
      await workerConnection.close();
      await tracing?.shutdown();
      await dev.stop();
    });
  });

const SERVICE_NAME = 'mcp-temporal-tasks';

/** Tracing when the OTEL_* variables turn it on (tracing.ts); undefined, and nothing loaded, when off. */
async function tracingFromEnv(serviceName: string): Promise<Tracing | undefined> {
  const settings = tracingSettings();
  return settings ? startTracing(settings, serviceName) : undefined;
}

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
  { alsoReady, tracing, extraMetrics }: { alsoReady?: () => Promise<Readiness>; tracing?: Tracing; extraMetrics?: ExtraMetrics } = {},
) {
  const client = await connectClient(settings, tracing ? [tracing.clientInterceptor()] : []);
  const server = await createMcpTasksServer({ ...config, client, tools: tools.tools, tokenVerifier: tokenVerifierFrom(opts) });
  const http = await server.listen({ alsoReady, extraMetrics });
  if (http.metricsUrl) console.log(`Metrics: ${http.metricsUrl}`);
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

serverOptions(program.command('serve').description('MCP endpoint only, on TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE'), '3000')
  .option('--stdio', 'serve MCP over stdin/stdout (desktop clients) instead of HTTP')
  .action(async (opts) => {
    const config = configFrom(opts);
    const tools = servedTools(opts);
    const tracing = await tracingFromEnv(SERVICE_NAME);
    if (opts.stdio) {
      const client = await connectClient(temporalSettings(), tracing ? [tracing.clientInterceptor()] : []);
      const server = await createMcpTasksServer({ ...config, client, tools: tools.tools });
      // no HTTP port in stdio: metrics only on a port of their own, when one is given
      const metrics =
        config.metrics && config.metricsPort !== undefined ? await listenMetrics(config.metricsHost, config.metricsPort) : undefined;
      if (metrics) console.error(`Metrics: ${metrics.url}`);
      await server.serveStdio(); // stdout carries MCP: logs go to stderr
      await metrics?.close();
      await client.connection.close();
      await tracing?.shutdown();
      process.exit(0);
    }
    const onStop = listenForStop();
    const mcp = await serveHttp(config, temporalSettings(), tools, opts, { tracing });
    console.log(`MCP endpoint: ${mcp.url}`);
    onStop(async () => {
      await mcp.close();
      await tracing?.shutdown();
    });
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
  const tracing = await tracingFromEnv(`${SERVICE_NAME}-worker`);
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
    tracing,
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
    await tracing?.shutdown();
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
