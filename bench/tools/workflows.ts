/** The benches' worker runs the demo workflows and the raw baseline beside them. */
import { sleep } from '@temporalio/workflow';

export * from '../../examples/demo/workflows';

/**
 * Not a tool: the demo's waitAndEcho without the task runtime (no status message, no progress,
 * no task status), the raw Temporal baseline of the benches (bench/peer, bench:raw, raw-batch).
 */
export async function plainTimer({ text, seconds }: { text: string; seconds: number }): Promise<string> {
  await sleep(seconds * 1000);
  return text;
}
