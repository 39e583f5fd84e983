/** What a batch of bench:peer cost: CPU per process, and Temporal's frontend calls where its metrics are read. */
import { callsBetween, type Counts, temporalCalls } from '../temporal-calls';

/** CPU seconds per process while fn ran (the sampler's names: temporal, ours.serve, mcp-agent.worker, bench, machine). */
export type CpuSnapshot = () => Record<string, number>;
/** What a batch cost: CPU seconds per process, and Temporal's frontend requests per operation where its metrics are read. */
export interface BatchCost {
  cpuS: Record<string, number>;
  temporalCalls?: Counts;
}
export async function withCost<T extends object>(
  cpu: CpuSnapshot,
  metricsUrl: string | undefined,
  fn: () => Promise<T>,
): Promise<T & BatchCost> {
  const calls = metricsUrl ? await temporalCalls(metricsUrl) : undefined;
  const before = cpu();
  const r = await fn();
  const after = cpu();
  const cpuS = Object.fromEntries(Object.keys(after).map((k) => [k, Math.round((after[k] - (before[k] ?? 0)) * 100) / 100]));
  if (!calls) return { ...r, cpuS };
  return { ...r, cpuS, temporalCalls: callsBetween(calls, await temporalCalls(metricsUrl!)) };
}
