/**
 * The server's Prometheus metrics (docs/production.md, "Observability"), one set per process:
 * Prometheus scrapes a process, and every server a process builds adds to the same series. Call
 * sites record through `metrics` (a counter increment, no I/O); `renderMetrics()` writes the text
 * format. No label carries a taskId or a principal: tools, methods, states and causes only.
 * prom-client, not OpenTelemetry metrics: it writes the text format itself (OTel needs an exporter
 * package and a MeterProvider) and adds the process's CPU, memory and event-loop series for free.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'mcp_tasks_' });

/** Request latencies: from 2 ms (a cached tasks/get) to a minute (a held call). */
const REQUEST_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Temporal round trips: from a millisecond to the call's bound (10 s by default). */
const TEMPORAL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requests = new Counter({
  name: 'mcp_tasks_requests_total',
  help: 'MCP requests over HTTP, by JSON-RPC method and outcome (ok, error: a JSON-RPC error, refused: an HTTP error status)',
  labelNames: ['method', 'outcome'],
  registers: [registry],
});
const requestSeconds = new Histogram({
  name: 'mcp_tasks_request_duration_seconds',
  help: 'Time to answer an MCP request over HTTP (a stream: to its first byte), by method',
  labelNames: ['method'],
  buckets: REQUEST_BUCKETS,
  registers: [registry],
});
const tasksStarted = new Counter({
  name: 'mcp_tasks_tasks_started_total',
  help: 'Tasks (and synchronous runs) whose start Temporal acknowledged, by tool',
  labelNames: ['tool'],
  registers: [registry],
});
const tasksEnded = new Counter({
  name: 'mcp_tasks_tasks_ended_total',
  help: 'Task ends this process read first (completed, failed, cancelled), by tool; each replica counts the ends it reads',
  labelNames: ['tool', 'state'],
  registers: [registry],
});
const taskReads = new Counter({
  name: 'mcp_tasks_task_reads_total',
  help: "Task reads (tasks/get, handles, streams) by where they were served from: watch, finished_cache, temporal or history (the events that woke a watch: a run's completion, a progress update)",
  labelNames: ['source'],
  registers: [registry],
});
const watches = new Gauge({
  name: 'mcp_tasks_watches',
  help: 'Places held now, by kind: subscription, result_stream, held_call, bounded_wait, polled',
  labelNames: ['kind'],
  registers: [registry],
});
const watchLimit = new Gauge({
  name: 'mcp_tasks_watches_limit',
  help: 'Most places one pool holds at once (--max-subscribed-tasks); each kind but polled shares one pool, polled has its own',
  registers: [registry],
});
const refusals = new Counter({
  name: 'mcp_tasks_refusals_total',
  help: 'Requests refused at a limit: running_tasks, running_tasks_per_caller, watches, watches_per_caller',
  labelNames: ['limit'],
  registers: [registry],
});
const runningTasks = new Gauge({
  name: 'mcp_tasks_running_tasks',
  help: "Running tasks of this server's tools, as the quota last counted them in Temporal (counted only while a cap is set)",
  registers: [registry],
});
const runningTasksLimit = new Gauge({
  name: 'mcp_tasks_running_tasks_limit',
  help: 'The cap on running tasks (--max-running-tasks; 0: none)',
  registers: [registry],
});
const temporalSeconds = new Histogram({
  name: 'mcp_tasks_temporal_request_duration_seconds',
  help: "Time of the store's bounded calls to Temporal (long-polls excluded), failed ones included",
  buckets: TEMPORAL_BUCKETS,
  registers: [registry],
});
const temporalErrors = new Counter({
  name: 'mcp_tasks_temporal_request_errors_total',
  help: "The store's bounded calls to Temporal that failed, by gRPC status (not_found included: a task that is gone)",
  labelNames: ['code'],
  registers: [registry],
});
const stuckSeen = new Counter({
  name: 'mcp_tasks_stuck_tasks_seen_total',
  help: 'Tasks this process found stuck (their workflow task keeps failing), each counted once, by tool',
  labelNames: ['tool'],
  registers: [registry],
});

/** Whether Temporal answers, asked at each scrape (so the alert needs no traffic). */
let temporalProbe: (() => Promise<boolean>) | undefined;
new Gauge({
  name: 'mcp_tasks_temporal_up',
  help: 'Whether Temporal described the namespace within 3 s at this scrape (1) or not (0)',
  registers: [registry],
  async collect() {
    if (temporalProbe) this.set((await temporalProbe()) ? 1 : 0);
  },
});

/** What a watch place is held for (docs/production.md lists them). */
export type WatchKind = 'subscription' | 'result_stream' | 'held_call' | 'bounded_wait' | 'polled';
export type RefusedLimit = 'running_tasks' | 'running_tasks_per_caller' | 'watches' | 'watches_per_caller';

/** The methods named in labels; anything else counts as `other` (a label set stays small whatever callers send). */
const METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/result',
  'tasks/list',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
]);

let enabled = true;

export const metrics = {
  request(method: string, outcome: 'ok' | 'error' | 'refused', seconds: number): void {
    if (!enabled) return;
    const name = METHODS.has(method) || method === 'response' || method === 'batch' ? method : 'other';
    requests.inc({ method: name, outcome });
    requestSeconds.observe({ method: name }, seconds);
  },
  taskStarted(tool: string): void {
    if (enabled) tasksStarted.inc({ tool });
  },
  taskEnded(tool: string, state: string): void {
    if (enabled) tasksEnded.inc({ tool, state });
  },
  taskRead(source: 'watch' | 'finished_cache' | 'temporal' | 'history'): void {
    if (enabled) taskReads.inc({ source });
  },
  watchHeld(kind: WatchKind, delta: number): void {
    if (enabled) watches.inc({ kind }, delta);
  },
  watchLimit(max: number): void {
    watchLimit.set(max);
  },
  refused(limit: RefusedLimit): void {
    if (enabled) refusals.inc({ limit });
  },
  runningTasks(count: number, limit: number): void {
    if (!enabled) return;
    runningTasks.set(count);
    runningTasksLimit.set(limit);
  },
  temporalCall(seconds: number, errorCode?: string): void {
    if (!enabled) return;
    temporalSeconds.observe(seconds);
    if (errorCode) temporalErrors.inc({ code: errorCode });
  },
  stuckSeen(tool: string): void {
    if (enabled) stuckSeen.inc({ tool });
  },
};

/**
 * Turns recording on or off for the process (on by default; off: the recorders return at once,
 * /metrics is not served) and sets the probe of Temporal that each scrape asks.
 */
export function configureMetrics(opts: { enabled: boolean; temporalUp?: () => Promise<boolean> }): void {
  enabled = opts.enabled;
  if (opts.temporalUp) temporalProbe = opts.temporalUp;
}

export function metricsEnabled(): boolean {
  return enabled;
}

/** The Prometheus text format of every series, and its content type. */
export async function renderMetrics(): Promise<{ text: string; contentType: string }> {
  return { text: await registry.metrics(), contentType: registry.contentType };
}

const GRPC_CODES = [
  'ok',
  'cancelled',
  'unknown',
  'invalid_argument',
  'deadline_exceeded',
  'not_found',
  'already_exists',
  'permission_denied',
  'resource_exhausted',
  'failed_precondition',
  'aborted',
  'out_of_range',
  'unimplemented',
  'internal',
  'unavailable',
  'data_loss',
  'unauthenticated',
];

/** The gRPC status of a failed Temporal call (on the error or its causes), by name; `other` when none is found. */
export function grpcCodeOf(err: unknown): string {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && GRPC_CODES[code]) return GRPC_CODES[code];
    if ((e as Error).name === 'WorkflowNotFoundError') return 'not_found';
  }
  return 'other';
}
