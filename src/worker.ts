import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
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
    workflowsPath: require.resolve('./workflows'),
    activities,
  });
}

let runtimeInstalled = false;

/** Our CLI stops the worker itself (in order: MCP endpoint, worker, dev server), so the SDK must not. */
export function installWorkerRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ shutdownSignals: [] });
  runtimeInstalled = true;
}
