/** Timing: calls at a concurrency, interleaved sequential calls, and polling on a schedule. All times in ms. */
import { readTcpCounters, type Sampler, tcpDelta } from './infra';
import { now } from './script';
import { type Summary, summarize } from './stats';
import { sleep } from '../test/support/wait';

/** A measured batch: its latencies' summary, the rate and the failures. */
export interface Stat extends Summary {
  concurrency: number;
  perSecond?: number;
  wallMs?: number;
  errors: number;
  firstError: string | undefined;
}

export interface Measured<T> {
  stat: Stat;
  results: T[];
  latencies: number[];
}

/**
 * Runs fn(i) for i < count with `concurrency` lanes; times each successful call.
 * Stops starting new calls after timeLimitMs. Returns stats and the results by index.
 */
export async function measure<T>(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<T>,
  timeLimitMs = 120_000,
): Promise<Measured<T>> {
  const latencies: number[] = [];
  const results: T[] = new Array(count);
  const failure = { errors: 0, firstError: undefined as string | undefined };
  let next = 0;
  const start = now();
  const stopAt = start + timeLimitMs;
  const lane = async () => {
    while (next < count && now() < stopAt) {
      const i = next++;
      const t = now();
      try {
        results[i] = await fn(i);
        latencies.push(now() - t);
      } catch (err) {
        failure.errors++;
        failure.firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  const wallMs = now() - start;
  const stat = { concurrency, ...summarize(latencies), perSecond: latencies.length / (wallMs / 1000), wallMs, ...failure };
  return { stat, results, latencies };
}

/** Several measure() runs of the same thing as one: percentiles over all calls, summed wall time. */
export function mergeRuns(runs: Array<Measured<unknown>>): Stat {
  const latencies = runs.flatMap((r) => r.latencies);
  const wallMs = runs.reduce((a, r) => a + (r.stat.wallMs ?? 0), 0);
  const errors = runs.reduce((a, r) => a + r.stat.errors, 0);
  const firstError = runs.map((r) => r.stat.firstError).find(Boolean);
  return {
    concurrency: runs[0].stat.concurrency,
    ...summarize(latencies),
    perSecond: latencies.length / (wallMs / 1000),
    wallMs,
    errors,
    firstError,
  };
}

/**
 * Sequential (c=1) latencies of several operations, interleaved: for call i every op runs once,
 * in an order rotated by i, so that background noise and drift hit all of them alike.
 */
export async function measureInterleaved(
  count: number,
  ops: Record<string, (i: number) => Promise<unknown>>,
  timeLimitMs = 120_000,
): Promise<Record<string, Stat>> {
  const names = Object.keys(ops);
  const acc = Object.fromEntries(
    names.map((n) => [n, { latencies: [] as number[], errors: 0, firstError: undefined as string | undefined }]),
  );
  const stopAt = now() + timeLimitMs;
  for (let i = 0; i < count && now() < stopAt; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const t = now();
      try {
        await ops[name](i);
        acc[name].latencies.push(now() - t);
      } catch (err) {
        acc[name].errors++;
        acc[name].firstError ??= (err as Error).message;
      }
    }
  }
  return Object.fromEntries(
    names.map((n) => [n, { concurrency: 1, ...summarize(acc[n].latencies), errors: acc[n].errors, firstError: acc[n].firstError }]),
  );
}

/** Runs fn over items with bounded concurrency, ignoring (but counting) failures. */
export async function forEachBounded<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<number> {
  const { stat } = await measure(items.length, concurrency, (i) => fn(items[i]), 600_000);
  return stat.errors;
}

/** One client polling one task with op(taskId) every intervalMs from firstSlot until endAt. */
/** What pollOne adds its polls to. */
export interface PollAcc {
  latencies: number[];
  lag: number[];
  errors: number;
  unexpected: number;
  firstError: string | undefined;
}

export async function pollOne(
  op: (taskId: string) => Promise<unknown>,
  taskId: string,
  firstSlot: number,
  endAt: number,
  intervalMs: number,
  acc: PollAcc,
): Promise<void> {
  let slot = firstSlot;
  await sleep(slot - now());
  while (now() < endAt) {
    acc.lag.push(Math.max(0, now() - slot));
    const t = now();
    try {
      const running = await op(taskId);
      acc.latencies.push(now() - t);
      if (!running) acc.unexpected++;
    } catch (err) {
      acc.errors++;
      acc.firstError ??= (err as Error).message;
    }
    slot = Math.max(slot + intervalMs, now()); // missed slots are skipped, not burst
    if (slot >= endAt) return;
    await sleep(slot - now());
  }
}

/** Every task polled by op at intervalMs (first polls staggered over one interval) for `seconds`. */
export async function pollWindow(
  ctx: { sampler: Sampler },
  ids: string[],
  intervalMs: number,
  seconds: number,
  op: (taskId: string) => Promise<unknown>,
) {
  ctx.sampler.resetWindow();
  const rssBefore = ctx.sampler.current().server;
  const cpu0 = ctx.sampler.cpuSnapshot();
  const tcp0 = readTcpCounters();
  const acc: PollAcc = { latencies: [], lag: [], errors: 0, unexpected: 0, firstError: undefined };
  const start = now() + 100;
  const endAt = start + seconds * 1000;
  await Promise.all(ids.map((id, i) => pollOne(op, id, start + (i / ids.length) * intervalMs, endAt, intervalMs, acc)));
  const elapsedS = Math.max(seconds, (now() - start) / 1000); // includes calls still running at the end
  return {
    achievedPerSecond: acc.latencies.length / elapsedS,
    polls: acc.latencies.length,
    errors: acc.errors,
    notRunning: acc.unexpected,
    firstError: acc.firstError,
    latency: summarize(acc.latencies),
    scheduleLag: summarize(acc.lag),
    serverRssBeforeMb: rssBefore,
    serverRssPeakMb: ctx.sampler.windowPeak().server,
    cpuPercent: cpuPercentSince(ctx, cpu0, elapsedS),
    tcp: tcpDelta(tcp0),
  };
}

/** CPU of each process (and of the rest of the machine) since cpu0, as % of one core. */
export function cpuPercentSince(ctx: { sampler: Sampler }, cpu0: Record<string, number>, seconds: number): Record<string, number> {
  const cpu1 = ctx.sampler.cpuSnapshot();
  const pct = Object.fromEntries(Object.keys(cpu1).map((k) => [k, (100 * (cpu1[k] - cpu0[k])) / seconds]));
  pct.others = pct.machine - pct.irq - pct.server - pct.worker - pct.temporal - pct.bench;
  return pct;
}
