import { DefaultLogger, LogEntry, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { logger } from './logging';
import { loadDataConverter } from './temporal/data-converter';
import fs from 'node:fs';
import path from 'node:path';
import * as activities from './activities';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
}

/** The worker runs every tool's workflow and the activities; it holds no state of its own. */
export async function createWorker({ connection, namespace, taskQueue }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    ...workflowCode(),
    activities,
    dataConverter: loadDataConverter(),
  });
}

/** The bundle `npm run build` made, or (e.g. under ts-node) the sources, bundled at start. */
function workflowCode(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundle = path.join(__dirname, 'workflow-bundle.js');
  return fs.existsSync(bundle) ? { workflowBundle: { codePath: bundle } } : { workflowsPath: require.resolve('./workflows') };
}

let runtimeInstalled = false;

/** Our CLI stops the worker itself (in order: MCP endpoint, worker, dev server), so the SDK must not. */
export function installWorkerRuntime(): void {
  if (runtimeInstalled) return;
  const level = logger.level === 'trace' ? 'TRACE' : (logger.level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(level, toJsonLog) });
  runtimeInstalled = true;
}

/** The SDK's log entries (workflows, activities, worker) as our JSON lines, with taskId/tool/runId. */
function toJsonLog({ level, message, meta = {} }: LogEntry): void {
  const { workflowId, workflowType, runId, workflowRunId, ...rest } = meta as Record<string, unknown>;
  const fields = workflowId ? { taskId: workflowId, tool: workflowType, runId: runId ?? workflowRunId, ...rest } : rest;
  const method = level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
  logger[method](fields, message);
}
