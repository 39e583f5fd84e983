import { CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type * as activities from '../activities';
import { setStatusMessage, textResult } from './task-runtime';
import type { CallToolResult } from './task-types';

export interface ProvisionEnvironmentArgs {
  name: string;
  steps?: number;
  stepMs?: number;
}

const { provisionStep, deprovisionStep } = proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '200 ms', maximumInterval: '5 seconds' },
});

const STEP_NAMES = ['network', 'database', 'compute', 'storage', 'dns', 'monitoring'];

/** Provisions an environment step by step; a cancel undoes the steps already done, newest first. */
export async function provisionEnvironment({ name, steps = 3, stepMs = 1000 }: ProvisionEnvironmentArgs): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  const done: number[] = [];
  try {
    for (let step = 1; step <= steps; step++) {
      const what = STEP_NAMES[(step - 1) % STEP_NAMES.length];
      setStatusMessage(`step ${step}/${steps}: provisioning ${what} for ${name}`);
      await provisionStep({ idempotencyKey: `${taskId}:step-${step}`, environment: name, step, what, durationMs: stepMs });
      done.push(step);
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        setStatusMessage(`cancelled: undoing ${done.length} step(s) of ${name}`);
        for (const step of done.reverse()) {
          await deprovisionStep({ idempotencyKey: `${taskId}:step-${step}`, environment: name, step });
        }
      });
    }
    throw err;
  }
  setStatusMessage(`environment ${name} ready`);
  return textResult(`Environment ${name} provisioned in ${steps} steps.`);
}
