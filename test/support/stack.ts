import { startServe, startWorker } from './mcp';
import { type CliProcess, stopAll, stopAllAfter } from './processes';
import { startTestTemporal, TestTemporal } from './temporal';
import {
  type InProcessServer,
  type InProcessServerOptions,
  type InProcessWorker,
  sharedTemporal,
  startInProcessServer,
  startInProcessWorker,
  terminateLeftovers,
  type ToolsModule,
  uniqueTaskQueue,
} from './in-process';

export interface Stack {
  temporal: TestTemporal;
  /** The MCP endpoint (http://127.0.0.1:port/mcp). */
  url: string;
  /** The task queue of this stack's worker and servers. */
  taskQueue: string;
  /** In process: the first server (its McpTasksServer, Temporal client, logs). */
  server?: InProcessServer;
  /** In process: the worker. */
  worker?: InProcessWorker;
  /** In process: one more server on the same Temporal and task queue (closed with the stack). */
  serve(opts?: InProcessServerOptions): Promise<InProcessServer>;
  /**
   * A `serve` child process (dist/) on this stack's Temporal and task queue, for the one test of a
   * file whose point is a CLI flag or variable; stopped with the stack.
   */
  serveProcess(args?: string[], env?: NodeJS.ProcessEnv): Promise<{ proc: CliProcess; url: string }>;
}

export interface StackOptions extends InProcessServerOptions {
  /** The process tier: `serve` and `worker` as child processes of dist/cli (where the CLI is the point). */
  processes?: boolean;
  /** Process tier: `serve`'s flags and environment. */
  serveArgs?: string[];
  serveEnv?: NodeJS.ProcessEnv;
  /** The worker's environment; in process it is set on this file's process.env (activities read it when they run). */
  workerEnv?: NodeJS.ProcessEnv;
  /** A dev server of this file's own (fresh database; it may be restarted or stopped) instead of the run's shared one. */
  ownTemporal?: boolean;
  /** Default: a fresh one in process, `mcp-tasks` (the CLI's default) on the process tier. */
  taskQueue?: string;
  /** In process: the worker's tools module (default: the tests' fixtures). */
  module?: ToolsModule;
  /** In process: no worker (tasks are started and nobody runs them). */
  noWorker?: boolean;
  /** In process: no first server (the file starts its own with stack.serve, e.g. once its identity provider runs); url stays unset. */
  noServer?: boolean;
}

/**
 * A test file's stack, up before its tests and down after: by default in this process (the
 * library's server and a Worker, on the run's shared Temporal, a task queue of its own); with
 * `processes: true` today's child processes (`serve` and `worker` from dist/, own Temporal).
 */
export function useStack(opts: StackOptions = {}): Stack {
  const servers: InProcessServer[] = [];
  const stack = {} as Stack;
  stack.serve = async (more = {}) => {
    const server = await startInProcessServer(stack.temporal, {
      tools: opts.tools,
      dataConverter: opts.dataConverter,
      ...more,
      taskQueue: stack.taskQueue,
    });
    servers.push(server);
    return server;
  };
  stack.serveProcess = (args = [], env = {}) => startServe(stack.temporal.address, ['--task-queue', stack.taskQueue, ...args], env);
  if (opts.processes) {
    beforeAll(async () => {
      stack.taskQueue = opts.taskQueue ?? 'mcp-tasks';
      const queueEnv = opts.taskQueue ? { MCP_TASK_QUEUE: opts.taskQueue } : {};
      stack.temporal = await startTestTemporal();
      await startWorker(stack.temporal.address, { ...queueEnv, ...opts.workerEnv });
      ({ url: stack.url } = await startServe(stack.temporal.address, opts.serveArgs, { ...queueEnv, ...opts.serveEnv }));
    });
    stopAllAfter(() => stack.temporal);
    return stack;
  }
  const envBefore: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    for (const [k, v] of Object.entries(opts.workerEnv ?? {})) {
      envBefore[k] = process.env[k];
      process.env[k] = v;
    }
    stack.taskQueue = opts.taskQueue ?? uniqueTaskQueue();
    stack.temporal = opts.ownTemporal ? await startTestTemporal() : await sharedTemporal();
    if (!opts.noWorker)
      stack.worker = await startInProcessWorker(stack.temporal, {
        taskQueue: stack.taskQueue,
        module: opts.module,
        dataConverter: opts.dataConverter,
      });
    if (opts.noServer) return;
    stack.server = await stack.serve(opts);
    stack.url = stack.server.url;
  });
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (stack.temporal) await terminateLeftovers(stack.temporal.client, stack.taskQueue);
    await stack.worker?.stop();
    await stopAll(); // anything a test spawned (a client, a CLI)
    await stack.temporal?.stop();
    for (const [k, v] of Object.entries(envBefore)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  return stack;
}
