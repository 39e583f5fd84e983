import { DefaultLogger, type LogEntry, Runtime } from '@temporalio/worker';
import { logger } from '../logging';

let runtimeInstalled = false;

/** Our CLI stops the worker itself (in order: MCP endpoint, worker, dev server), so the SDK must not. */
export function installWorkerRuntime(): void {
  if (runtimeInstalled) return;
  const level = logger.level === 'trace' ? 'TRACE' : (logger.level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(level, toJsonLog) });
  runtimeInstalled = true;
}

/**
 * Temporal core warnings that are expected in normal operation of this server and say nothing
 * a user can act on: an activity finishing (or heartbeating) after its workflow was cancelled or
 * ended, e.g. a tool cancelled through tasks/cancel while its activity was still running.
 */
const BENIGN_CORE_WARNINGS = [
  /^Activity not found on completion\b/,
  /^Activity not found when recording heartbeat\b/,
];

type BridgeLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** The level an SDK log entry is written at: its own, except known-benign core warnings, demoted to debug. */
export function bridgeLogLevel({ level, message, meta = {} }: Pick<LogEntry, 'level' | 'message' | 'meta'>): BridgeLevel {
  const own = level === 'TRACE' ? 'trace' : (level.toLowerCase() as BridgeLevel);
  const fromCore = (meta as Record<string, unknown>).sdkComponent === 'core';
  return fromCore && own === 'warn' && BENIGN_CORE_WARNINGS.some((re) => re.test(message)) ? 'debug' : own;
}

/** The SDK's log entries (workflows, activities, worker) as our JSON lines, with taskId/tool/runId. */
function toJsonLog(entry: LogEntry): void {
  const { workflowId, workflowType, runId, workflowRunId, ...rest } = (entry.meta ?? {}) as Record<string, unknown>;
  const fields = workflowId ? { taskId: workflowId, tool: workflowType, runId: runId ?? workflowRunId, ...rest } : rest;
  logger[bridgeLogLevel(entry)](fields, entry.message);
}
