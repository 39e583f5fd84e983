/**
 * Requests Temporal's frontend answered, per operation, read from the dev server's Prometheus
 * endpoint (`service_requests`): what a stack's work cost Temporal in calls, which varies far
 * less between runs than the times and CPU do.
 */

/** Frontend requests per operation. */
export type Counts = Record<string, number>;

export async function temporalCalls(metricsUrl: string): Promise<Counts> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Counts = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('service_requests{') || /service_name="(?!frontend)/.test(line)) continue;
    const op = line.match(/operation="([^"]+)"/)?.[1];
    if (op) counts[op] = (counts[op] ?? 0) + Number(line.split(' ').pop());
  }
  return counts;
}

/** after − before per operation, leaving out those that did not move. */
export function callsBetween(before: Counts, after: Counts): Counts {
  const moved = Object.keys(after).map((op): [string, number] => [op, after[op] - (before[op] ?? 0)]);
  return Object.fromEntries(moved.filter(([, n]) => n > 0));
}
