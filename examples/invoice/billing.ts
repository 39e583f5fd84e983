/** A stand-in for a billing API: effects land as marker files in a ledger folder, deduplicated by requestId. */
import fs from 'node:fs/promises';
import path from 'node:path';

const ledger = () => process.env.MCP_TASKS_LEDGER_DIR ?? path.resolve('.data', 'ledger');
const marker = (kind: string, requestId: string) => path.join(ledger(), `${kind}-${requestId.replace(/[^A-Za-z0-9_.-]/g, '_')}`);

async function record(kind: string, requestId: string): Promise<void> {
  await fs.mkdir(ledger(), { recursive: true });
  await fs.writeFile(marker(kind, requestId), '', { flag: 'w' }); // the same request twice is one effect
}

export const billing = {
  /** Sends an invoice; it takes a while, and an aborted call sends nothing. */
  async send(request: { requestId: string; customer: string; amount: number }, signal: AbortSignal): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Number(process.env.BILLING_DELAY_MS ?? 500));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
    await record('invoice-sent', request.requestId);
    return `INV-${request.requestId.slice(-8)}`;
  },
  /** Voids an invoice if it was sent; nothing otherwise. */
  async void(request: { requestId: string }): Promise<void> {
    const sent = await fs.access(marker('invoice-sent', request.requestId)).then(
      () => true,
      () => false,
    );
    if (sent) await record('invoice-voided', request.requestId);
  },
};
