import type { NativeConnection, WorkerDeploymentOptions } from '@temporalio/worker';
import type { Command } from 'commander';
import { Option } from 'commander';
import { ConfigError } from '../mcp/config';
import { parseCliSettings } from './cli-settings';

/**
 * Worker Versioning of the `worker` command (Temporal Worker Deployments): with a build id, the
 * worker polls as version `<deployment>.<build id>` and every task workflow it starts is PINNED
 * to that version (or AUTO_UPGRADE), so a deploy never replays a running task on different code.
 * Without one, the worker is unversioned (any worker on the task queue takes any task).
 * docs/production.md, "Deploying without breaking running tasks", says which to choose.
 */
export interface WorkerVersioning {
  deploymentName: string;
  buildId: string;
  /** PINNED (default): a task stays on the version that started it. AUTO_UPGRADE: moves to the current version (needs patched()). */
  behavior: 'PINNED' | 'AUTO_UPGRADE';
  /** Make this version the deployment's current version once it polls, if it is new (new tasks go to it). */
  setCurrent: boolean;
}

export const DEFAULT_DEPLOYMENT_NAME = 'mcp-temporal-tasks';

export function addVersioningOptions(cmd: Command): Command {
  return cmd
    .option('--build-id <id>', "Worker Versioning: this build's id, e.g. the release or git sha (MCP_BUILD_ID); tasks are pinned to it")
    .option('--deployment-name <name>', `Worker Deployment name (MCP_DEPLOYMENT_NAME, default ${DEFAULT_DEPLOYMENT_NAME})`)
    .addOption(
      new Option(
        '--versioning-behavior <behavior>',
        'with --build-id: PINNED (default) keeps a task on its version; AUTO_UPGRADE moves it to the current one (MCP_VERSIONING_BEHAVIOR)',
      ).choices(['PINNED', 'AUTO_UPGRADE']),
    )
    .option(
      '--set-current',
      'with --build-id: a new version becomes current once it polls, so new tasks go to it (MCP_SET_CURRENT_VERSION=true)',
    );
}

/** The flags over MCP_BUILD_ID, MCP_DEPLOYMENT_NAME, MCP_VERSIONING_BEHAVIOR, MCP_SET_CURRENT_VERSION (one merge). */
export function parseVersioning(
  opts: { buildId?: string; deploymentName?: string; versioningBehavior?: string; setCurrent?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): WorkerVersioning | undefined {
  const { buildId, deploymentName = DEFAULT_DEPLOYMENT_NAME, versioningBehavior: behavior, setCurrent } = parseCliSettings(opts, env);
  if (!buildId) {
    // the variable alone is ignored (compose sets it for whenever a build id is given); the flag is a mistake
    if (opts.setCurrent) throw new ConfigError('--set-current needs --build-id (MCP_BUILD_ID)');
    return undefined;
  }
  // Temporal names a version "<deployment>.<build id>": the deployment name cannot hold a "."
  if (deploymentName.length > 255 || /[.\s]/.test(deploymentName))
    throw new ConfigError(
      `--deployment-name (MCP_DEPLOYMENT_NAME): "${deploymentName}" must be at most 255 characters without "." or spaces`,
    );
  if (buildId.length > 255 || /\s/.test(buildId) || buildId === '__unversioned__')
    throw new ConfigError(`--build-id (MCP_BUILD_ID): "${buildId}" must be at most 255 characters without spaces`);
  return { deploymentName, buildId, behavior, setCurrent };
}

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;
// temporal.api.enums.v1.WorkerDeploymentVersionStatus
const VERSION_STATUS_UNSPECIFIED = 0;
const VERSION_STATUS_INACTIVE = 1;
const VERSION_STATUS_CURRENT = 2;

/**
 * `--set-current`: a NEW version (never current or ramping before) becomes the deployment's
 * current version once the server knows it. A versioned worker gets tasks only through its
 * deployment's current (or ramping) version: until one is set, new tasks wait. A version that
 * was current before is left alone, so restarting an old build's worker (still draining its
 * pinned tasks) never takes new tasks back; roll back on purpose with
 * `temporal worker deployment set-current-version`. The server learns the version from the
 * worker's first polls, so NotFound / FailedPrecondition are retried.
 */
export async function setCurrentVersion(
  connection: NativeConnection,
  namespace: string,
  v: WorkerVersioning,
  timeoutMs = 60_000,
): Promise<'made current' | 'already current' | 'left as is: it was current before'> {
  const service = connection.workflowService;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { workerDeploymentVersionInfo: info } = await service.describeWorkerDeploymentVersion({
        namespace,
        deploymentVersion: { deploymentName: v.deploymentName, buildId: v.buildId },
      });
      const status = info?.status ?? VERSION_STATUS_UNSPECIFIED;
      if (status === VERSION_STATUS_CURRENT || info?.currentSinceTime) return 'already current';
      // older servers report no status: then only firstActivationTime tells a used version
      const fresh = status === VERSION_STATUS_INACTIVE || (status === VERSION_STATUS_UNSPECIFIED && !info?.firstActivationTime);
      if (!fresh) return 'left as is: it was current before';
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: v.deploymentName,
        buildId: v.buildId,
        identity: `mcp-temporal-tasks worker ${v.buildId}`,
      });
      return 'made current';
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
  return {
    version: { deploymentName: v.deploymentName, buildId: v.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: v.behavior,
  };
}
