/** Waits and polls of tests, benches and scripts. */
import type { Client } from '@temporalio/client';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Polls `probe` every intervalMs until it answers something other than undefined (visibility and workflow ends lag). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, intervalMs = 250, what = 'nothing'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} after ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** The workflow ids a visibility query lists now; undefined when none (for waitFor). */
export async function listedIds(client: Client, query: string): Promise<string[] | undefined> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
  return ids.length ? ids : undefined;
}
