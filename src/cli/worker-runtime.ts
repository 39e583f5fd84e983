import { DefaultLogger, type LogEntry, NativeConnection, Runtime } from '@temporalio/worker';
import { logger, type TemporalSettings } from '../tasks';

let runtimeInstalled = false;

/** Prometheus's naming conventions, as the server's own metrics follow them: `_total` counters, `_seconds` histograms. */
const PROMETHEUS_CONVENTIONS = { countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true };

export interface WorkerRuntimeOptions {
  /** `host:port` of a Prometheus endpoint (GET /metrics) for the SDK's metrics; none by default. */
  metricsBindAddress?: string;
}

/**
 * Installs the process's Temporal runtime, once: our log bridge, no signal handling (our CLI
 * stops the worker itself, in order: MCP endpoint, worker, dev server), and SDK metrics on a
 * Prometheus endpoint when asked. The runtime exists once per process, so a caller with options
 * must come first; a later call with options that cannot be honoured any more throws.
 */
export function installWorkerRuntime(options: WorkerRuntimeOptions = {}): void {
  if (runtimeInstalled) {
    if (options.metricsBindAddress)
      throw new Error('the Temporal runtime is already installed: metrics must be asked for before the first worker connection');
    return;
  }
  const level = logger.level === 'trace' ? 'TRACE' : (logger.level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');
  const telemetry = options.metricsBindAddress
    ? { telemetryOptions: { metrics: { prometheus: { bindAddress: options.metricsBindAddress, ...PROMETHEUS_CONVENTIONS } } } }
    : {};
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(level, toJsonLog), ...telemetry });
  runtimeInstalled = true;
}

/**
 * Temporal core warnings that are expected in normal operation of this server and say nothing
 * a user can act on: an activity finishing (or heartbeating) after its workflow was cancelled or
 * ended, e.g. a tool cancelled through tasks/cancel while its activity was still running.
 */
const BENIGN_CORE_WARNINGS = [/^Activity not found on completion\b/, /^Activity not found when recording heartbeat\b/];

type BridgeLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** The level an SDK log entry is written at: its own, except known-benign core warnings, demoted to debug. */
export function bridgeLogLevel({ level, message, meta = {} }: Pick<LogEntry, 'level' | 'message' | 'meta'>): BridgeLevel {
  const own = level === 'TRACE' ? 'trace' : (level.toLowerCase() as BridgeLevel);
  const fromCore = (meta as Record<string, unknown>).sdkComponent === 'core';
  return fromCore && own === 'warn' && BENIGN_CORE_WARNINGS.some((re) => re.test(message)) ? 'debug' : own;
}

/** Log fields that carry text from payloads (a tool's statusMessage is built from its arguments). */
const PAYLOAD_FIELDS = ['statusMessage'];

/**
 * With a payload codec (TEMPORAL_PAYLOAD_CODEC: payloads are encrypted, so their text must
 * not leak through logs), payload-derived fields are hidden at info and above; debug keeps them.
 */
export function redactPayloadFields(fields: Record<string, unknown>, level: BridgeLevel, codecOn: boolean): Record<string, unknown> {
  if (!codecOn || level === 'debug' || level === 'trace') return fields;
  const out = { ...fields };
  for (const name of PAYLOAD_FIELDS) if (out[name] !== undefined) out[name] = '[hidden: payload codec on]';
  return out;
}

/**
 * With tracing on, Temporal's interceptors put trace_id on the lines logged inside a workflow's
 * or activity's span; the SDK's own lines about the same task (an activity started or
 * completed) come outside it. The last trace seen per task fills those in.
 */
export class TaskTraces {
  private readonly byTask = new Map<string, string>();

  constructor(private readonly limit = 10_000) {}

  fill(taskId: unknown, fields: Record<string, unknown>): Record<string, unknown> {
    if (typeof taskId !== 'string') return fields;
    if (typeof fields.trace_id === 'string') {
      this.byTask.delete(taskId); // most recent last: the oldest goes first past the limit
      this.byTask.set(taskId, fields.trace_id);
      if (this.byTask.size > this.limit) this.byTask.delete(this.byTask.keys().next().value!);
      return fields;
    }
    const traceId = this.byTask.get(taskId);
    return traceId ? { ...fields, trace_id: traceId } : fields;
  }
}

const taskTraces = new TaskTraces();

/** The SDK's log entries (workflows, activities, worker) as our JSON lines, with taskId/tool/runId (and trace_id, traced). */
function toJsonLog(entry: LogEntry): void {
  const { workflowId, workflowType, runId, workflowRunId, ...rest } = (entry.meta ?? {}) as Record<string, unknown>;
  const fields = workflowId
    ? taskTraces.fill(workflowId, { taskId: workflowId, tool: workflowType, runId: runId ?? workflowRunId, ...rest })
    : rest;
  const level = bridgeLogLevel(entry);
  logger[level](redactPayloadFields(fields, level, !!process.env.TEMPORAL_PAYLOAD_CODEC), entry.message);
}

/** The worker's connection (native: the CLI's worker and the worker side of `dev`). */
export function connectWorkerConnection(settings: TemporalSettings): Promise<NativeConnection> {
  installWorkerRuntime();
  return NativeConnection.connect(settings.connectionOptions);
}
