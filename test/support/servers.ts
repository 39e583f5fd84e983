/**
 * The CLI's processes against a Temporal: `worker` and `serve` (on a free port), and the whole
 * process stack (a dev server, one worker, one serve) that benches and scripts run against.
 * Tests get their stack from ./stack (useStack), which builds on these.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Cleanup, CliProcess, spawnCli, SpawnOptions } from './processes';
import { DevServerOptions, startDevServerOnFreePorts, tempDbFile } from './temporal';

/** With cleanup, the process is registered with it before it is waited on (a failed start is stopped too). */
export type CliOptions = SpawnOptions & { nodeArgs?: string[]; cleanup?: Cleanup };

/** `worker` against the given Temporal, resolved once it polls its task queue. */
export async function startWorker(
  address: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
  opts: CliOptions = {},
): Promise<CliProcess> {
  const proc = spawnCli(['worker', ...args], { TEMPORAL_ADDRESS: address, ...env }, opts);
  opts.cleanup?.track('worker', proc);
  await proc.waitFor(/worker polling task queue/);
  return proc;
}

/** `serve` on a free port against the given Temporal; resolves with its URL. */
export async function startServe(
  address: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  opts: CliOptions = {},
): Promise<{ proc: CliProcess; url: string }> {
  const proc = spawnCli(['serve', '--port', '0', ...args], { TEMPORAL_ADDRESS: address, ...env }, opts);
  opts.cleanup?.track('serve', proc);
  const [, url] = await proc.waitFor(/MCP endpoint: (\S+)/);
  return { proc, url };
}

export interface ProcessStackOptions {
  /** The tools module worker and serve load (MCP_TOOLS_MODULE); default: the environment's. */
  toolsModule?: string;
  /** Added to both processes' environment. */
  env?: NodeJS.ProcessEnv;
  workerEnv?: NodeJS.ProcessEnv;
  serveArgs?: string[];
  serveEnv?: NodeJS.ProcessEnv;
  /** Node flags of `serve` (--cpu-prof, --trace-gc…). */
  serveNodeArgs?: string[];
  /** Node flags for every worker of the stack (e.g. --cpu-prof). */
  workerNodeArgs?: string[];
  /** Options of the dev server (metricsPort…). */
  temporal?: Partial<DevServerOptions>;
  /** A running Temporal to use instead of a dev server of the stack's own (a cluster: ./temporal-cluster); pids.temporal is then 0. */
  temporalAddress?: string;
  /** Keep only the last this many characters of each process's output. */
  keepOutput?: number;
}

export interface ProcessStack {
  url: string;
  address: string;
  dbFile: string;
  pids: { server: number; worker: number; temporal: number };
  outputs: { server: () => string; worker: () => string };
  /** The environment worker and serve run with (TEMPORAL_ADDRESS, the tools module…). */
  env: NodeJS.ProcessEnv;
  /** Another worker like the first (e.g. after one was killed), stopped with the rest. */
  startWorker(): Promise<CliProcess>;
}

async function ownDevServer(cleanup: Cleanup, options: Partial<DevServerOptions> = {}) {
  const dbFile = tempDbFile('mtt-stack-');
  const temporal = await startDevServerOnFreePorts({ dbFile, ...options });
  cleanup.add('temporal dev server', temporal.pid, async () => {
    await temporal.stop();
    fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
  });
  return { temporal, dbFile };
}

/**
 * A Temporal dev server (SQLite in a temp folder, removed with it), one worker and one serve,
 * every one registered with cleanup and stopped by it, also on errors and signals.
 */
export async function startProcessStack(cleanup: Cleanup, opts: ProcessStackOptions = {}): Promise<ProcessStack> {
  const { temporal, dbFile } = opts.temporalAddress
    ? { temporal: { address: opts.temporalAddress, pid: 0 }, dbFile: '' }
    : await ownDevServer(cleanup, opts.temporal);
  const env = { TEMPORAL_NAMESPACE: 'default', ...(opts.toolsModule ? { MCP_TOOLS_MODULE: opts.toolsModule } : {}), ...opts.env };
  const spawnOpts = { keepOutput: opts.keepOutput, cleanup };
  const addWorker = () => startWorker(temporal.address, { ...env, ...opts.workerEnv }, [], { ...spawnOpts, nodeArgs: opts.workerNodeArgs });
  const worker = await addWorker();
  const { proc: serve, url } = await startServe(
    temporal.address,
    opts.serveArgs,
    { ...env, ...opts.serveEnv },
    { ...spawnOpts, nodeArgs: opts.serveNodeArgs },
  );
  return {
    url,
    address: temporal.address,
    dbFile,
    pids: { server: serve.pid, worker: worker.pid, temporal: temporal.pid },
    outputs: { server: serve.output, worker: worker.output },
    env: { TEMPORAL_ADDRESS: temporal.address, ...env },
    startWorker: addWorker,
  };
}
