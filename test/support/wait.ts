import type { Client } from '@temporalio/client';

/** Polls `probe` until it answers something (visibility and workflow ends lag). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The workflow ids a visibility query lists now; undefined when none (for waitFor). */
export async function listedIds(client: Client, query: string): Promise<string[] | undefined> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
  return ids.length ? ids : undefined;
}
