/**
 * The end-to-end batch every stack and every way of following shares: `cfg.e2e.tasks` tasks
 * created at its concurrency, each followed from its create until the client sees it completed.
 */
import type { BenchContext } from '../clients';
import { measure } from '../measure';
import { now } from '../script';
import { median, summarize } from '../stats';

/** Follows one task from its create; resolves with the time the client saw it completed. */
export type Follow = (id: string, createdAt: number, deadline: number, reads: { count: number }) => Promise<number>;

export type BatchSettings = Pick<BenchContext['cfg']['e2e'], 'tasks' | 'seconds' | 'createConcurrency' | 'timeoutMs'>;

export async function timedBatch(cfg: BatchSettings, live: Pick<Set<string>, 'delete'>, create: () => Promise<string>, follow: Follow) {
  const { tasks, seconds, createConcurrency, timeoutMs } = cfg;
  const taskMs = seconds * 1000;
  const done: Array<{ id: string; createdAt: number; doneAt: number }> = [];
  const followers: Array<Promise<unknown>> = [];
  const failures = { errors: 0, firstError: undefined as string | undefined };
  const reads = { count: 0 };
  const start = now(); // before the first create
  const deadline = start + timeoutMs;
  const { stat: createStat } = await measure(
    tasks,
    createConcurrency,
    async () => {
      const id = await create();
      const createdAt = now();
      followers.push(
        follow(id, createdAt, deadline, reads).then(
          (doneAt) => done.push({ id, createdAt, doneAt }),
          (err: Error) => {
            failures.errors++;
            failures.firstError ??= err.message;
          },
        ),
      );
    },
    timeoutMs,
  );
  await Promise.all(followers);
  done.forEach((d) => live.delete(d.id));
  const totalMs = done.length ? Math.max(...done.map((d) => d.doneAt)) - start : NaN;
  const perTask = done.map((d) => d.doneAt - d.createdAt - taskMs);
  return {
    tasks,
    completed: done.length,
    totalMs,
    overheadPerTaskMs: (totalMs - taskMs) / tasks,
    medianObservedMinusTaskMs: median(perTask),
    observedMinusTask: summarize(perTask),
    readsPerTask: reads.count / tasks,
    create: createStat,
    ...failures,
    ids: done.map((d) => d.id),
  };
}
