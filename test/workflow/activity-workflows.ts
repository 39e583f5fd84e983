/**
 * Workflows whose activities test the `./activity` helpers on the real dev server
 * (test/workflow/activities.test.ts): a retried activity's checkpoint, and the idempotency key
 * across continue-as-new and a reset. Plain workflows (not tasks): McpTasksPlugin's interceptors
 * act on every workflow and activity of the worker.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';

export interface CheckpointActivities {
  /** Heartbeats and fails its first attempts as `plan` says; every attempt records the details it resumed from. */
  checkpointed(plan: 'keepalive' | 'progress' | 'resumed'): Promise<void>;
}
const { checkpointed } = proxyActivities<CheckpointActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '1 second',
  retry: { initialInterval: '50 milliseconds', backoffCoefficient: 1, maximumAttempts: 3 },
});

export async function retriedCheckpoint({ plan }: { plan: 'keepalive' | 'progress' | 'resumed' }): Promise<void> {
  await checkpointed(plan);
}

export interface KeyActivities {
  /** Records idempotencyKey() with the runId the activity sees. */
  recordKey(): Promise<void>;
}
const { recordKey } = proxyActivities<KeyActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });

/** One keyed step, then `continueRuns` more runs of a continue-as-new chain, one step each. */
export async function keyedStep({ continueRuns = 0 }: { continueRuns?: number }): Promise<void> {
  await recordKey();
  if (continueRuns > 0) await continueAsNew<typeof keyedStep>({ continueRuns: continueRuns - 1 });
}
