import type { NativeConnection, WorkerDeploymentOptions } from '@temporalio/worker';
import type { Command } from 'commander';
import { Option } from 'commander';
import { ConfigError } from '../config';

/**
 * Worker Versioning of the `worker` command (Temporal Worker Deployments): with a build id, the
 * worker polls as version `<deployment>:<build id>` and every task workflow it starts is PINNED
 * to that version, so a deploy never replays a running task on different code. Without one, the
 * worker is unversioned (any worker on the task queue takes any task).
 */
export interface WorkerVersioning {
  deploymentName: string;
  buildId: string;
  /** PINNED (default): a task stays on the version that started it. AUTO_UPGRADE: moves to the current version (needs patched()). */
  behavior: 'PINNED' | 'AUTO_UPGRADE';
  /** Make this version the deployment's current version once it polls (new tasks go to it). */
  setCurrent: boolean;
}

export const DEFAULT_DEPLOYMENT_NAME = 'mcp-temporal-tasks';

export function addVersioningOptions(cmd: Command): Command {
  return cmd
    .option('--build-id <id>', 'Worker Versioning: this build\'s id, e.g. the release or git sha (MCP_BUILD_ID); tasks are pinned to it', process.env.MCP_BUILD_ID || undefined)
    .option('--deployment-name <name>', `Worker Deployment name (MCP_DEPLOYMENT_NAME, default ${DEFAULT_DEPLOYMENT_NAME})`, process.env.MCP_DEPLOYMENT_NAME || DEFAULT_DEPLOYMENT_NAME)
    .addOption(
      new Option('--versioning-behavior <behavior>', 'with --build-id: PINNED keeps a task on its version; AUTO_UPGRADE moves it to the current one (MCP_VERSIONING_BEHAVIOR)')
        .choices(['PINNED', 'AUTO_UPGRADE'])
        .default(process.env.MCP_VERSIONING_BEHAVIOR || 'PINNED'),
    )
    .option('--set-current', 'with --build-id: make this version current once it polls, so new tasks go to it (MCP_SET_CURRENT_VERSION=true)', /^(1|true|yes)$/i.test(process.env.MCP_SET_CURRENT_VERSION ?? ''));
}

export function parseVersioning(opts: { buildId?: string; deploymentName?: string; versioningBehavior?: string; setCurrent?: boolean }): WorkerVersioning | undefined {
  const buildId = opts.buildId?.trim();
  if (!buildId) {
    if (opts.setCurrent) throw new ConfigError('--set-current (MCP_SET_CURRENT_VERSION) needs --build-id (MCP_BUILD_ID)');
    return undefined;
  }
  const deploymentName = opts.deploymentName?.trim() || DEFAULT_DEPLOYMENT_NAME;
  // Temporal's version string is "<deployment>.<build id>" (older servers: ":"); both must be free of the separator
  // Temporal names a version "<deployment>.<build id>": the deployment name cannot hold a "."
  if (deploymentName.length > 255 || /[.\s]/.test(deploymentName)) throw new ConfigError(`--deployment-name (MCP_DEPLOYMENT_NAME): "${deploymentName}" must be at most 255 characters without "." or spaces`);
  if (buildId.length > 255 || /\s/.test(buildId) || buildId === '__unversioned__') throw new ConfigError(`--build-id (MCP_BUILD_ID): "${buildId}" must be at most 255 characters without spaces`);
  const behavior = opts.versioningBehavior === 'AUTO_UPGRADE' ? 'AUTO_UPGRADE' : 'PINNED';
  return { deploymentName, buildId, behavior, setCurrent: opts.setCurrent === true };
}

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/**
 * Makes this version the deployment's current one. A versioned worker's tasks are dispatched
 * only to the current (or ramping) version: until one is set, new tasks wait. The server learns
 * the version from the worker's first polls, so NotFound / FailedPrecondition are retried.
 */
export async function setCurrentVersion(connection: NativeConnection, namespace: string, v: WorkerVersioning, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: v.deploymentName, buildId: v.buildId, identity: `mcp-temporal-tasks worker ${v.buildId}` });
      return;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if ((code !== GRPC_NOT_FOUND && code !== GRPC_FAILED_PRECONDITION) || Date.now() > deadline) {
        throw new Error(`could not make ${v.deploymentName}.${v.buildId} the current version: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Worker.create's options for this version. */
export function workerDeploymentOptions(v: WorkerVersioning): WorkerDeploymentOptions {
  return { version: { deploymentName: v.deploymentName, buildId: v.buildId }, useWorkerVersioning: true, defaultVersioningBehavior: v.behavior };
}
