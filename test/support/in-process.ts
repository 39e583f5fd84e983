/**
 * The in-process tier: the library's server (createMcpTasksServer, from src/, no build) and a
 * Temporal Worker with McpTasksPlugin, both in the test process, against a real Temporal dev
 * server (the run's shared one, see global-setup.ts, or a file's own). Only what a process
 * boundary is the point of (crashes, SIGKILL, the CLI's flags, stdio, packaging) still spawns
 * `dist/cli/index.js` (useStack({ processes: true }), test/faults/).
 *
 * Isolation on a shared server: every stack has its own task queue, and servers with
 * authentication get an owner key of their file (unless the test names one), so one file's
 * tasks/list, task_list and per-caller quotas never see another file's tasks. What a file left
 * running on its queue is terminated when it ends.
 */
import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import {
  type BundleOptions,
  bundleWorkflowCode,
  DefaultLogger,
  type LogLevel,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ENV_VARS, parseServerConfig, type ServerConfigInput } from '../../src/mcp/config';
import { StaticTokenVerifier } from '../../src/mcp/auth/static-tokens';
import { createMcpTasksServer, type McpTasksServer } from '../../src/mcp/server';
import { loadDataConverter } from '../../src/tasks/data-converter';
import { logger, type LogLevel as TaskLogLevel, setLogLevel } from '../../src/tasks/logging';
import type { ToolDefinition } from '../../src/tool-definition';
import { McpTasksPlugin } from '../../src/worker';
import { startTestTemporal, type TestTemporal } from './temporal';

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'index.ts');
const WORKFLOW_ENTRY = path.join(ROOT, 'src', 'workflows', 'index.ts');

/** This file's owner key: two files' "alice" are two owners (see the header). */
export const FILE_OWNER_KEY = `test-owner-key-${randomBytes(12).toString('hex')}`;

/** A fresh task queue name (one per stack: files on the shared server never take each other's tasks). */
export const uniqueTaskQueue = (prefix = 'mcp-tasks') => `${prefix}-${randomBytes(5).toString('hex')}`;

/** The tests' tools module (demo, invoice, conformance fixtures, the tests' own), from source. */
export interface ToolsModule {
  tools: ToolDefinition[];
  activities?: Record<string, unknown>;
  workflowsPath: string;
}

export function fixturesModule(): ToolsModule {
  // required here, not imported: only files that start a stack load (and transform) them
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(FIXTURES) as ToolsModule;
}

/** The run's shared dev server (global-setup.ts); a file without one (e.g. jest run by another config) starts its own. */
export async function sharedTemporal(): Promise<TestTemporal> {
  const shared = process.env.MTT_SHARED_TEMPORAL;
  if (!shared) return startTestTemporal();
  const { address, uiUrl, pid, dbFile } = JSON.parse(shared) as { address: string; uiUrl: string; pid: number; dbFile: string };
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    // the server belongs to the run: a file stops only its connection
    server: { address, uiUrl, pid, stop: async () => undefined },
    address,
    dbFile,
    client,
    stop: () => connection.close(),
  };
}

/** Bundles resolve the package's workflow entry to the source tree (no dist/ in a workflow bundle). */
export const sourceWorkflowEntry = (config: WebpackConfiguration): WebpackConfiguration => ({
  ...config,
  resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), 'mcp-temporal-tasks/workflow$': WORKFLOW_ENTRY } },
});
type WebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

let runtimeInstalled = false;

/** Core's own logs at ERROR (workflow task failures some tests cause would flood the output). */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.MTT_TEST_LOG_LEVEL as LogLevel | undefined) ?? 'ERROR';
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
    });
  } catch {
    // already installed in this module registry
  }
}

/**
 * The fixtures' workflows bundled once per run (webpack takes seconds): the first file that needs
 * them writes the bundle into the run's directory, the next ones load it. The package's workflow
 * entry is the source tree's (no dist/).
 */
export async function fixturesBundle(module: ToolsModule): Promise<string> {
  const dir = process.env.MTT_RUN_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-bundle-'));
  const file = path.join(dir, 'fixtures-workflows.bundle.js');
  if (fs.existsSync(file)) return file;
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };
  const { code } = await bundleWorkflowCode({
    workflowsPath: module.workflowsPath,
    plugins: [new McpTasksPlugin({ tools: module.tools })],
    logger: quiet,
    webpackConfigHook: sourceWorkflowEntry,
  });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, file);
  return file;
}

export interface InProcessWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** A Temporal Worker in this process running the tools module (what `worker` runs), with McpTasksPlugin. */
export async function startInProcessWorker(
  temporal: { address: string },
  opts: { taskQueue: string; module?: ToolsModule; dataConverter?: DataConverter; options?: Partial<WorkerOptions> },
): Promise<InProcessWorker> {
  installRuntime();
  const module = opts.module ?? fixturesModule();
  const codePath = await fixturesBundle(module);
  const connection = await NativeConnection.connect({ address: temporal.address });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: opts.taskQueue,
      workflowBundle: { codePath },
      activities: module.activities ?? {},
      dataConverter: opts.dataConverter ?? loadDataConverter(),
      plugins: [new McpTasksPlugin({ tools: module.tools })],
      shutdownGraceTime: '1 s',
      ...opts.options,
    });
  } catch (err) {
    await connection.close();
    throw err;
  }
  let failure: unknown;
  const running = worker.run().catch((err: unknown) => {
    failure = err;
  });
  return {
    worker,
    taskQueue: opts.taskQueue,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      if (failure) throw failure;
    },
  };
}

export interface InProcessServerOptions {
  /** The server's settings (the same as `serve`'s flags: ServerConfigInput); taskQueue defaults to the stack's. */
  config?: ServerConfigInput;
  /** Static bearer tokens, as MCP_AUTH_TOKENS has them: "alice:tok-a,bob:tok-b". */
  tokens?: string;
  tokenVerifier?: OAuthTokenVerifier;
  tools?: ToolDefinition[];
  dataConverter?: DataConverter;
}

export interface InProcessServer {
  url: string;
  server: McpTasksServer;
  client: Client;
  /** Every line the server logged (its `log` option; task logs go through pino on stderr). */
  logs(): string;
  close(): Promise<void>;
}

/** The library's server in this process on 127.0.0.1, a free port: what `serve` runs, without the CLI. */
export async function startInProcessServer(
  temporal: { address: string },
  opts: InProcessServerOptions & { taskQueue: string },
): Promise<InProcessServer> {
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: 'default', dataConverter: opts.dataConverter ?? loadDataConverter() });
  const lines: string[] = [];
  captureTaskLogs();
  const tokenVerifier = opts.tokenVerifier ?? (opts.tokens ? StaticTokenVerifier.parse(opts.tokens, 'tokens') : undefined);
  const config = { taskQueue: opts.taskQueue, ...opts.config };
  if ((tokenVerifier || config.oauth) && config.ownerKey === undefined) config.ownerKey = FILE_OWNER_KEY;
  let server: McpTasksServer;
  try {
    server = await createMcpTasksServer({
      ...config,
      client,
      tools: opts.tools ?? fixturesModule().tools,
      tokenVerifier,
      log: (line) => {
        lines.push(line);
        if (process.env.MTT_TEST_VERBOSE) console.error(line);
      },
    });
  } catch (err) {
    await connection.close();
    throw err;
  }
  const http = await server.listen({ host: '127.0.0.1', port: 0 });
  let closing: Promise<void> | undefined;
  return {
    url: http.url,
    server,
    client,
    logs: () => `${lines.join('\n')}\n${taskLogLines.join('')}`,
    // as `serve` stops: open subscriptions end gracefully and are flushed before connections are cut (once: a test may close it early)
    close: () =>
      (closing ??= (async () => {
        await server.close();
        await new Promise((r) => setTimeout(r, 100));
        await http.close();
        await connection.close();
      })()),
  };
}

/**
 * The JSON task logs (src/tasks/logging.ts, pino) that `serve` writes on stderr, kept in memory
 * here (a test reads them through logs(); MTT_TEST_VERBOSE=1 prints them too). At `info`, as
 * `serve` logs by default, unless MCP_LOG_LEVEL says otherwise.
 */
const taskLogLines: string[] = [];
let capturing = false;
function captureTaskLogs(): void {
  if (capturing) return;
  capturing = true;
  setLogLevel((process.env.MCP_LOG_LEVEL as TaskLogLevel | undefined) ?? 'info');
  // every child logger reads the root's stream: this takes all of this file's task logs
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = {
    write: (line: string) => {
      taskLogLines.push(line);
      if (process.env.MTT_TEST_VERBOSE) process.stderr.write(line);
    },
  };
}

/**
 * The server settings that `serve` would take from these environment variables (the same merge,
 * parseServerConfig), only those set: e.g. oauthEnv(...) of test/support/identity-provider.ts.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): ServerConfigInput {
  const parsed = parseServerConfig({}, env);
  const out: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_VARS))
    if (name && env[name] !== undefined && env[name] !== '') out[key] = parsed[key as keyof typeof parsed];
  if (parsed.oauth) out.oauth = parsed.oauth;
  return out as ServerConfigInput;
}

/** Terminates what is still running on `taskQueue` (a file's leftovers would count in the next files' quotas). */
export async function terminateLeftovers(client: Client, taskQueue: string): Promise<void> {
  const ids: string[] = [];
  try {
    for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` }))
      ids.push(wf.workflowId);
    await Promise.all(
      ids.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test file ended')
          .catch(() => undefined),
      ),
    );
  } catch {
    // best effort: Temporal may be stopped already (a file that stops its own)
  }
}
