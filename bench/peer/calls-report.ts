/** The end-to-end batches' Temporal calls per task, by frontend operation (bench:peer's report). */
import { markdownTable } from '../stats';
import type { Counts } from '../temporal-calls';

/** The batches of a run that counted their Temporal calls, by column name. */
function batches(e2e: Record<string, any[]>): [string, Counts[], number][] {
  const cols: [string, (x: any) => any][] = [
    ['ours polled', (x) => (x.temporalCalls ? x : undefined)],
    ['ours subscribed', (x) => x.subscribed],
    ['raw polled with describe()', (x) => x.rawPolled],
    ['raw + result()', (x) => x.raw],
  ];
  const out: [string, Counts[], number][] = [];
  for (const [key, runs] of Object.entries(e2e)) {
    const pick = key === 'ours' ? cols : ([[`${key} polled`, cols[0][1]]] as [string, (x: any) => any][]);
    for (const [name, get] of pick) {
      const found = runs.map(get).filter((b) => b?.temporalCalls);
      if (found.length) out.push([name, found.map((b) => b.temporalCalls), found[0].tasks]);
    }
  }
  return out;
}

/** A markdown table (operations down, batches across, calls per task averaged over runs), or undefined when no batch counted. */
export function e2eCallsTable(e2e: Record<string, any[]> | undefined): string | undefined {
  const cols = e2e ? batches(e2e) : [];
  if (!cols.length) return undefined;
  const perTask = cols.map(([, runs, tasks]) => {
    const sum: Counts = {};
    for (const run of runs) for (const [op, n] of Object.entries(run)) sum[op] = (sum[op] ?? 0) + n / runs.length / tasks;
    return sum;
  });
  const ops = [...new Set(perTask.flatMap((c) => Object.keys(c)))].sort(
    (a, b) => Math.max(...perTask.map((c) => c[b] ?? 0)) - Math.max(...perTask.map((c) => c[a] ?? 0)),
  );
  const rows = ops.map((op) => [op, ...perTask.map((c) => (c[op] ?? 0).toFixed(2))]);
  rows.push([
    'all',
    ...perTask.map((c) =>
      Object.values(c)
        .reduce((a, b) => a + b, 0)
        .toFixed(2),
    ),
  ]);
  return markdownTable(['Temporal frontend calls per task', ...cols.map(([name]) => name)], rows);
}
