/** 2. Get: tasks/get of running and completed tasks beside raw describe(), query and the server-equivalent calls. */
import {
  type BenchContext,
  createFixtureTasks,
  getExpecting,
  rawDescribe,
  rawDescribeAndResult,
  rawQuery,
  terminateLive,
  waitCompleted,
  waitSettled,
} from '../clients';
import { measureInterleaved } from '../measure';
import { log } from '../script';
import { markdownTable, ratio } from '../stats';

/** tasks/get beside raw describe(), raw query and the server's own Temporal calls: c=1, interleaved. */
function compareGets(ctx: BenchContext, ids: string[], status: string, equivalent: (ctx: BenchContext, id: string) => Promise<unknown>) {
  return measureInterleaved(
    ids.length,
    {
      ours: (i) => getExpecting(ctx, ids[i], status),
      describe: (i) => rawDescribe(ctx, ids[i]),
      query: (i) => rawQuery(ctx, ids[i]),
      equivalent: (i) => equivalent(ctx, ids[i]),
    },
    ctx.cfg.measureTimeLimitMs,
  );
}

export async function benchGet(ctx: BenchContext) {
  const { tasks, seconds } = ctx.cfg.get;
  log(`get: ${tasks} running tasks`);
  const running = await createFixtureTasks(ctx, tasks, seconds);
  await waitSettled(ctx, running.ids);
  const runningRow = await compareGets(ctx, running.ids, 'working', rawDescribe);
  await terminateLive(ctx);
  log(`get: ${tasks} completed tasks`);
  const done = await createFixtureTasks(ctx, tasks, 0);
  await waitCompleted(ctx, done.ids);
  const completedRow = await compareGets(ctx, done.ids, 'completed', rawDescribeAndResult);
  return { running: runningRow, completed: completedRow };
}

export function renderGet(data: Awaited<ReturnType<typeof benchGet>>): string {
  const rows = (['running', 'completed'] as const)
    .map((kind) => [kind, data[kind]] as const)
    .map(([kind, r]) => [
      kind,
      r.ours.n,
      r.ours.p50,
      r.ours.p95,
      r.ours.p99,
      r.describe.p50,
      r.describe.p99,
      r.query.p50,
      r.query.p99,
      ratio(r.ours.p50, r.describe.p50),
      ratio(r.ours.p50, r.query.p50),
      r.equivalent.p50,
      ratio(r.ours.p50, r.equivalent.p50),
      `${r.ours.errors}/${r.describe.errors}/${r.query.errors}`,
    ]);
  return [
    '## 2. Get: tasks/get vs raw describe() and raw query (c=1, ms)',
    markdownTable(
      [
        'task',
        'n',
        'ours p50',
        'p95',
        'p99',
        'describe p50',
        'p99',
        'query p50',
        'p99',
        'ours/describe p50',
        'ours/query p50',
        'server-equivalent p50',
        'ours/equivalent p50',
        'errors ours/desc/query',
      ],
      rows,
    ),
    '',
    'server-equivalent = the Temporal calls tasks/get itself makes: describe() for a running task, describe() + result() for a completed one.',
  ].join('\n');
}
