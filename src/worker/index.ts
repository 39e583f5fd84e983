/**
 * `mcp-temporal-tasks/worker`: McpTasksPlugin, added to an existing worker
 * (`Worker.create({ plugins: [new McpTasksPlugin({ tools })], ... })`). It installs the task
 * runtime as a workflow interceptor, so tool workflows are plain functions, and refuses to
 * start a worker that lacks a tool's workflow (a typo would leave tasks `working` forever) or
 * whose prebuilt workflow bundle lacks the runtime. Its activity interceptor lets the
 * `./activity` helpers keep an activity's checkpoint and idempotency key.
 */
import type { OpenTelemetryPlugin, OpenTelemetryPluginOptions } from '@temporalio/interceptors-opentelemetry';
import { attemptOnSpan, tracingPlugin } from './tracing';
import { SimplePlugin } from '@temporalio/plugin';
import type { Duration } from '@temporalio/common';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import { activityInterceptors } from '../activities/interceptors';
import type { ToolDefinition } from '../tool-definition';
import { workflowTypeOf } from '../tool-definition';
import { checkBundleHasRuntime, checkBundleHasTracing, TASK_RUNTIME_INTERCEPTOR_MODULE } from './bundle-check';
import { DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS } from './defaults';

export { DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS, TASK_RUNTIME_INTERCEPTOR_MODULE };

export interface McpTasksPluginOptions {
  /** The same tool definitions the server has; their workflows must be in the worker's workflows. */
  tools?: ToolDefinition[];
  /**
   * Traces workflows, activities and undos with Temporal's OpenTelemetry interceptors: they
   * join the trace the task's start carried in its headers, and their spans go to this
   * processor (the workflow's through a sink). Unset: no tracing, and nothing of it is loaded.
   */
  tracing?: OpenTelemetryPluginOptions;
  /**
   * The worker's stickyQueueScheduleToStartTimeout when its own options do not set one
   * (default DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS).
   */
  stickyQueueScheduleToStartTimeout?: Duration;
}

export class McpTasksPlugin extends SimplePlugin {
  /** Temporal's own tracing plugin, whose hooks run before this plugin's (its interceptors are outermost). */
  private readonly tracing?: OpenTelemetryPlugin;

  constructor(private readonly pluginOptions: McpTasksPluginOptions = {}) {
    super({
      name: 'mcp-temporal-tasks',
      workerInterceptors: {
        workflowModules: [TASK_RUNTIME_INTERCEPTOR_MODULE],
        activity: [activityInterceptors, ...(pluginOptions.tracing ? [attemptOnSpan] : [])],
      },
    });
    if (pluginOptions.tracing) this.tracing = tracingPlugin(pluginOptions.tracing);
  }

  configureWorker(options: WorkerOptions): WorkerOptions {
    if (options.workflowsPath) this.checkWorkflows(options.workflowsPath);
    else if (options.workflowBundle) {
      checkBundleHasRuntime(options.workflowBundle);
      if (this.tracing) checkBundleHasTracing(options.workflowBundle);
    }
    const sticky =
      options.stickyQueueScheduleToStartTimeout ??
      this.pluginOptions.stickyQueueScheduleToStartTimeout ??
      DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS;
    const configured = { ...options, stickyQueueScheduleToStartTimeout: sticky };
    return super.configureWorker(this.tracing ? this.tracing.configureWorker(configured) : configured);
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    if (!options.workflowsPath && options.workflowBundle) checkBundleHasRuntime(options.workflowBundle);
    return super.configureReplayWorker(this.tracing ? this.tracing.configureReplayWorker(options) : options);
  }

  configureBundler(options: BundleOptions): BundleOptions {
    this.checkWorkflows(options.workflowsPath);
    return super.configureBundler(this.tracing ? this.tracing.configureBundler(options) : options);
  }

  /** Every tool's workflow is exported under its name (its workflow type) by the worker's workflows. */
  private checkWorkflows(workflowsPath: string): void {
    let exported: Set<string>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the worker's own path, known only at run time
      exported = new Set(Object.keys(require(workflowsPath) as object));
    } catch (err) {
      // e.g. TypeScript sources the bundler compiles but Node cannot load: nothing to check against
      console.warn(`McpTasksPlugin: cannot load ${workflowsPath} to check the tools' workflows (${(err as Error).message})`);
      return;
    }
    // tools started by type name (workflowType, no function) run on other workers: not checked here
    const missing = (this.pluginOptions.tools ?? []).filter((t) => !t.local && t.workflow && !exported.has(workflowTypeOf(t)));
    if (missing.length > 0) {
      const list = missing.map((t) => `${t.name} (workflow ${workflowTypeOf(t)})`).join(', ');
      throw new Error(`McpTasksPlugin: the worker's workflows (${workflowsPath}) do not export the workflow of ${list}`);
    }
  }
}
