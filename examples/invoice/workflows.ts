/** send_invoice (docs/writing-tools.md): confirm, send, wait for the payment; a cancel voids what was sent. */
import { ActivityCancellationType, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import { elicit, setStatusMessage, textResult, withCompensation } from 'mcp-temporal-tasks/workflow';
import type { z } from 'zod';
import type * as activities from './activities';
import type { sendInvoiceInput } from './api';

const { sendInvoice } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '2 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});
const { voidInvoice } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 20 } });

export async function sendInvoiceWorkflow({ customer, amount }: z.infer<typeof sendInvoiceInput>) {
  const idempotencyKey = `${workflowInfo().workflowId}:send`;
  setStatusMessage('waiting for confirmation');
  const answer = await elicit('confirm', `Send an invoice of ${amount} to ${customer}?`, {
    type: 'object',
    properties: { confirm: { type: 'boolean' } },
    required: ['confirm'],
  });
  if (answer.action !== 'accept' || answer.content?.confirm !== true) return textResult('Not sent.', true);
  const id = await withCompensation(async (undo) => {
    setStatusMessage('sending');
    const sent = await undo.step(
      () => sendInvoice({ idempotencyKey, customer, amount }),
      () => voidInvoice({ idempotencyKey }),
    );
    setStatusMessage(`sent ${sent}, waiting for payment`);
    await sleep('1 second'); // stands for waiting on a payment signal, timers, more steps
    return sent;
  });
  return textResult(`Invoice ${id} sent to ${customer}.`);
}
