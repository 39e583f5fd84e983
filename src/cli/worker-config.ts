import * as z from 'zod';
import type { Command } from 'commander';
import { parseSettings } from '../mcp/config';
import { durationMs } from '../mcp/duration';
import { DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS } from '../worker/defaults';

/**
 * The production settings of `worker`: shutdown grace, cache and slot sizes, the Prometheus
 * endpoint and the health endpoint. Flags win over the environment; a bad value is refused
 * with the flag and the variable named (the CLI exits 2, like every configuration error).
 */

const duration = durationMs(
  z
    .number()
    .int()
    .min(0)
    .max(24 * 3_600_000),
);

const count = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const port = (min: number) => z.coerce.number().int().min(min).max(65_535).optional();

export const WorkerConfigSchema = z.object({
  /** How long running activities may finish after SIGTERM before they are cancelled. */
  shutdownGrace: duration.default(30_000),
  /** Workflows kept in memory between workflow tasks (0: none, every task replays its history). */
  maxCachedWorkflows: count(0, 100_000).default(100),
  /** Activities this worker runs at once. */
  maxConcurrentActivities: count(1, 10_000).default(50),
  /** Workflow tasks this worker runs at once; the SDK needs 2 or more while workflows are cached. */
  maxConcurrentWorkflowTasks: count(2, 10_000).default(20),
  /**
   * Workflow task polls open at once: a number (at most that many) or `auto` (the SDK scales
   * them on the server's feedback). Unset: the SDK's min(10, maxConcurrentWorkflowTasks).
   */
  workflowTaskPollers: z.union([z.literal('auto'), count(2, 1_000)]).optional(),
  /**
   * The share of those polls on the shared task queue, where every new task's first workflow task
   * arrives (the rest wait on this worker's sticky queue). Unset: the SDK's 0.2.
   */
  nonStickyPollRatio: z.coerce.number().min(0.01).max(1).optional(),
  /**
   * How long a workflow task waits on this worker's sticky queue before any worker may take it:
   * after a crash, the dead worker's tasks stall this long. At least 100 ms: below that a busy
   * live worker would lose most tasks to full replays elsewhere.
   */
  stickyScheduleToStartTimeout: durationMs(z.number().int().min(100).max(600_000)).default(DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS),
  /** Prometheus endpoint of the SDK's metrics (GET /metrics); off unless a port is given. */
  metricsPort: port(1),
  metricsHost: z.string().min(1).default('127.0.0.1'),
  /** Health endpoint (GET /healthz); off unless a port is given; 0 picks a free one. */
  healthPort: port(0),
  healthHost: z.string().min(1).default('127.0.0.1'),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export const WORKER_ENV_VARS: Record<keyof WorkerConfig, string> = {
  shutdownGrace: 'MCP_WORKER_SHUTDOWN_GRACE',
  maxCachedWorkflows: 'MCP_WORKER_MAX_CACHED_WORKFLOWS',
  maxConcurrentActivities: 'MCP_WORKER_MAX_CONCURRENT_ACTIVITIES',
  maxConcurrentWorkflowTasks: 'MCP_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
  workflowTaskPollers: 'MCP_WORKER_WORKFLOW_TASK_POLLERS',
  nonStickyPollRatio: 'MCP_WORKER_NON_STICKY_POLL_RATIO',
  stickyScheduleToStartTimeout: 'MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT',
  metricsPort: 'MCP_METRICS_PORT',
  metricsHost: 'MCP_METRICS_HOST',
  healthPort: 'MCP_HEALTH_PORT',
  healthHost: 'MCP_HEALTH_HOST',
};

export function parseWorkerConfig(flags: Partial<Record<keyof WorkerConfig, unknown>>, env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseSettings({ schema: WorkerConfigSchema, envVars: WORKER_ENV_VARS, title: 'Invalid worker configuration' }, flags, env);
}

/** The Worker.create options these settings stand for. */
export function workerTuning(config: WorkerConfig) {
  return {
    shutdownGraceTime: config.shutdownGrace,
    // past the grace, cancelled activities get this long to settle before run() gives up
    shutdownForceTime: config.shutdownGrace + 10_000,
    maxCachedWorkflows: config.maxCachedWorkflows,
    maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.maxConcurrentWorkflowTasks,
    stickyQueueScheduleToStartTimeout: config.stickyScheduleToStartTimeout,
    ...pollerOptions(config),
  };
}

/** Only what was set: unset, the SDK's defaults apply. */
function pollerOptions({ workflowTaskPollers, nonStickyPollRatio }: WorkerConfig) {
  return {
    ...(workflowTaskPollers === 'auto' ? { workflowTaskPollerBehavior: { type: 'autoscaling' as const } } : {}),
    ...(typeof workflowTaskPollers === 'number' ? { maxConcurrentWorkflowTaskPolls: workflowTaskPollers } : {}),
    ...(nonStickyPollRatio !== undefined ? { nonStickyToStickyPollRatio: nonStickyPollRatio } : {}),
  };
}

const MAX_CACHED_FLAG = ['--max-cached-workflows <n>', 'workflows kept in memory (MCP_WORKER_MAX_CACHED_WORKFLOWS, default 100)'] as const;
const STICKY_FLAG = [
  '--sticky-schedule-to-start-timeout <duration>',
  `how long a workflow task waits for this worker's sticky queue before any worker takes it, e.g. 2s: a crashed worker's tasks stall this long (MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT, default ${DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS / 1000}s)`,
] as const;

/** The `worker` command's flags for these settings (no commander defaults: the environment fills in, then the schema). */
export function addWorkerConfigOptions(cmd: Command): Command {
  return cmd
    .option(
      '--shutdown-grace <duration>',
      'on SIGTERM, how long running activities may finish, e.g. 30s (MCP_WORKER_SHUTDOWN_GRACE, default 30s)',
    )
    .option(...MAX_CACHED_FLAG)
    .option('--max-concurrent-activities <n>', 'activities run at once (MCP_WORKER_MAX_CONCURRENT_ACTIVITIES, default 50)')
    .option('--max-concurrent-workflow-tasks <n>', 'workflow tasks run at once (MCP_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS, default 20)')
    .option(
      '--workflow-task-pollers <n|auto>',
      "workflow task polls open at once, or auto (MCP_WORKER_WORKFLOW_TASK_POLLERS, default: the SDK's)",
    )
    .option(
      '--non-sticky-poll-ratio <r>',
      "share of those polls on the shared task queue (MCP_WORKER_NON_STICKY_POLL_RATIO, default: the SDK's 0.2)",
    )
    .option(...STICKY_FLAG)
    .option('--metrics-port <port>', 'serve SDK metrics for Prometheus on GET /metrics (MCP_METRICS_PORT; default off)')
    .option('--metrics-host <host>', 'address the metrics endpoint binds to (MCP_METRICS_HOST, default 127.0.0.1)')
    .option(
      '--health-port <port>',
      'serve GET /healthz: 200 only while Temporal lists this worker as polling (MCP_HEALTH_PORT; default off, 0 picks a free port)',
    )
    .option('--health-host <host>', 'address the health endpoint binds to (MCP_HEALTH_HOST, default 127.0.0.1)');
}

/** The worker settings `dev` takes too, for its embedded worker: what it keeps resident, how fast a crash's tasks move on. */
export function addDevWorkerOptions(cmd: Command): Command {
  return cmd.option(...MAX_CACHED_FLAG).option(...STICKY_FLAG);
}

const DevWorkerSchema = WorkerConfigSchema.pick({ maxCachedWorkflows: true, stickyScheduleToStartTimeout: true });

/** `dev`'s worker options from its flags and the same environment variables as `worker`. */
export function devWorkerTuning(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env) {
  const envVars = {
    maxCachedWorkflows: WORKER_ENV_VARS.maxCachedWorkflows,
    stickyScheduleToStartTimeout: WORKER_ENV_VARS.stickyScheduleToStartTimeout,
  };
  const config = parseSettings({ schema: DevWorkerSchema, envVars, title: 'Invalid dev configuration' }, flags, env);
  return { maxCachedWorkflows: config.maxCachedWorkflows, stickyQueueScheduleToStartTimeout: config.stickyScheduleToStartTimeout };
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}
