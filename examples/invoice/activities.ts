/** The invoice tool's activities (docs/writing-tools.md): every side effect, idempotent by key. */
import { Context } from '@temporalio/activity';
import { billing } from './billing';

export async function sendInvoice(input: { idempotencyKey: string; customer: string; amount: number }): Promise<string> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 200); // long calls heartbeat: a cancel or a dead worker is noticed
  try {
    return await billing.send({ ...input, requestId: input.idempotencyKey }, ctx.cancellationSignal); // deduplicated by requestId
  } finally {
    clearInterval(beat);
  }
}

export async function voidInvoice(input: { idempotencyKey: string }): Promise<void> {
  await billing.void({ requestId: input.idempotencyKey }); // a no-op when nothing was sent
}
