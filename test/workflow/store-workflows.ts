/**
 * Workflows of the store's tests (test/workflow/store.test.ts): tools whose ends and failures
 * the readers must report as Temporal records them.
 */
import { CancelledFailure, condition, continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import { type CallToolResult, setStatusMessage, textResult, undoActivity, withCompensation } from 'mcp-temporal-tasks/workflow';

/** The activities of the workflows below. */
export interface StoreActivities {
  applyEffect(input: { key: string }): Promise<void>;
  undoEffect(input: { key: string }): Promise<void>;
  alwaysFails(input: { message: string }): Promise<void>;
}
const once = { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } } as const;
const { applyEffect } = proxyActivities<StoreActivities>(once);
const { alwaysFails } = proxyActivities<StoreActivities>({ startToCloseTimeout: '10 seconds', retry: { initialInterval: '200 ms', backoffCoefficient: 1 } });

/** Throws a cancellation of its own making (an inner scope's, say): nobody requested a cancel. */
export async function cancelsItself(): Promise<CallToolResult> {
  setStatusMessage('about to cancel itself');
  await sleep(10);
  throw new CancelledFailure('an inner scope was cancelled');
}

/**
 * Applies one step (undone by `undoEffect`), then hits a bug in every workflow task that starts
 * before `fixedAt` (epoch ms): a build whose bug a later deploy fixes. Then waits for a cancel.
 */
export async function buggyUntil({ fixedAt }: { fixedAt: number }): Promise<CallToolResult> {
  const key = workflowInfo().workflowId;
  return withCompensation(async (saga) => {
    await saga.step(() => applyEffect({ key }), undoActivity('undoEffect', [{ key }], once), 'the effect');
    await sleep(10);
    if (Date.now() < fixedAt) throw new TypeError('a bug that the next deploy fixes');
    setStatusMessage('fixed');
    await condition(() => false);
    return textResult('unreachable');
  });
}

/** Calls an activity that fails every attempt (retried for ever, 200 ms apart). */
export async function retriesForEver(): Promise<CallToolResult> {
  await alwaysFails({ message: 'the billing API answers 503' });
  return textResult('unreachable');
}

/** Continues as new with an argument over Temporal's payload limit: Temporal refuses it, every attempt. */
export async function continuesTooBig({ pad }: { pad?: string }): Promise<CallToolResult> {
  if (pad !== undefined) return textResult('unreachable');
  await sleep(10);
  return continueAsNew<typeof continuesTooBig>({ pad: 'x'.repeat(2_500_000) });
}
