import type { OpenTelemetryPluginOptions } from '@temporalio/interceptors-opentelemetry';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import fs from 'node:fs';
import { loadDataConverter } from '../tasks';
import { McpTasksPlugin } from '../worker';
import type { ToolsModule } from './tools-module';
import { ToolsModuleError } from './tools-module';
import { type WorkerVersioning, workerDeploymentOptions } from './worker-versioning';

export interface CliWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  module: ToolsModule;
  /** Shutdown grace, cache and slot sizes (the `worker` command's settings); SDK defaults without. */
  tuning?: WorkerTuning;
  /** Worker Versioning: poll as this Worker Deployment version (see worker-versioning.ts); unversioned without. */
  versioning?: WorkerVersioning;
  /** Traces workflows and activities (McpTasksPlugin's `tracing`); off without. */
  tracing?: OpenTelemetryPluginOptions;
}

/** The Worker.create options that size and stop a production worker (see worker-config.ts). */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'shutdownGraceTime'
  | 'shutdownForceTime'
  | 'maxCachedWorkflows'
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentWorkflowTaskPolls'
  | 'nonStickyToStickyPollRatio'
  | 'workflowTaskPollerBehavior'
  | 'stickyQueueScheduleToStartTimeout'
>;

/** The CLI's worker: the tools module's workflows and activities, with McpTasksPlugin. */
export async function createWorker({
  connection,
  namespace,
  taskQueue,
  module,
  tuning,
  versioning,
  tracing,
}: CliWorkerOptions): Promise<Worker> {
  if (!module.workflowsPath) throw new ToolsModuleError('the tools module exports no `workflowsPath`: the worker needs its workflows');
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    // the build's bundle has no tracing interceptors: a traced worker bundles its workflows at start
    ...(tracing ? { workflowsPath: module.workflowsPath } : workflowCode(module.workflowsPath)),
    activities: module.activities ?? {},
    dataConverter: loadDataConverter(),
    plugins: [new McpTasksPlugin({ tools: module.tools, ...(tracing ? { tracing } : {}) })],
    ...tuning,
    ...(versioning ? { workerDeploymentOptions: workerDeploymentOptions(versioning) } : {}),
  });
}

/** A bundle made at build time beside the workflows (`<name>.bundle.js`) starts faster; else they are bundled now. */
function workflowCode(workflowsPath: string): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundle = workflowsPath.replace(/\.[cm]?js$/, '') + '.bundle.js';
  return fs.existsSync(bundle) ? { workflowBundle: { codePath: bundle } } : { workflowsPath };
}
