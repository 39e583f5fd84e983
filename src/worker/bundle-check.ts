import fs from 'node:fs';
import type { WorkflowBundleOption } from '@temporalio/worker';

/** The workflow interceptor module that installs the task runtime (what the plugin adds when it bundles). */
export const TASK_RUNTIME_INTERCEPTOR_MODULE = require.resolve('../workflows/interceptors');

/**
 * The literal src/workflows/interceptors.ts exports as TASK_RUNTIME_MARKER. Written again here
 * rather than imported: importing it would load workflow code into the worker, and putting it in
 * contract.ts would put it into every bundle (the tools' workflows import the contract). A bundle
 * has it exactly when that module is one of its interceptor modules: no workflow code imports it.
 */
const TASK_RUNTIME_MARKER = 'mcp-temporal-tasks:task-runtime-interceptors';

/**
 * A prebuilt workflowBundle (bundled ahead, e.g. in CI) is compiled code: the plugin cannot add
 * its interceptor module to it (SimplePlugin drops workflow interceptor modules when a bundle is
 * given). Without it, tool workflows would run as plain functions: no undo on cancel, no claim
 * guard, no continue-as-new carry. So a bundle without the runtime stops the worker, saying how
 * to bundle it in.
 */
export function checkBundleHasRuntime(bundle: WorkflowBundleOption): void {
  const code = bundleCode(bundle);
  if (code.includes(TASK_RUNTIME_MARKER)) return;
  throw new Error(
    `McpTasksPlugin: the workflowBundle${'codePath' in bundle ? ` (${bundle.codePath})` : ''} was bundled without the task runtime's interceptor, ` +
      `so tool workflows would run without it (a cancel would not undo their steps). Bundle it with the plugin: ` +
      `bundleWorkflowCode({ workflowsPath, plugins: [new McpTasksPlugin({ tools })] }), ` +
      `or add TASK_RUNTIME_INTERCEPTOR_MODULE from 'mcp-temporal-tasks/worker' (${TASK_RUNTIME_INTERCEPTOR_MODULE}) to its workflowInterceptorModules.`,
  );
}

/** A class of Temporal's OpenTelemetry workflow interceptor module: in a bundle exactly when that module was bundled in. */
const TRACING_MARKER = 'OpenTelemetryInboundInterceptor';

/**
 * With tracing on, a prebuilt bundle must hold Temporal's OpenTelemetry workflow interceptors
 * (the plugin cannot add them to compiled code): without, workflows would make no spans and
 * activities would not join the task's trace.
 */
export function checkBundleHasTracing(bundle: WorkflowBundleOption): void {
  if (bundleCode(bundle).includes(TRACING_MARKER)) return;
  throw new Error(
    `McpTasksPlugin: tracing is on, but the workflowBundle${'codePath' in bundle ? ` (${bundle.codePath})` : ''} was bundled without ` +
      `Temporal's OpenTelemetry workflow interceptors, so workflows would not join their task's trace. Bundle it with the plugin ` +
      `given the same tracing option, or pass workflowsPath so the worker bundles at start.`,
  );
}

function bundleCode(bundle: WorkflowBundleOption): string {
  if ('code' in bundle) return bundle.code;
  try {
    return fs.readFileSync(bundle.codePath, 'utf8');
  } catch (err) {
    throw new Error(`McpTasksPlugin: cannot read the workflowBundle at ${bundle.codePath} (${(err as Error).message})`);
  }
}
