/** 3. Update: the tasks/update ack beside a raw signal. */
import { type BenchContext, createFixtureTasks, rawSignal, terminateLive, waitSettled } from '../clients';
import { measureInterleaved } from '../measure';
import { log } from '../script';
import { markdownTable, ratio } from '../stats';

export async function benchUpdate(ctx: BenchContext) {
  const { tasks, seconds } = ctx.cfg.update;
  const limit = ctx.cfg.measureTimeLimitMs;
  log(`update: 2 × ${tasks} running tasks`);
  // separate task sets, so neither signal lands while the other's workflow task is in flight
  const forOurs = (await createFixtureTasks(ctx, tasks, seconds)).ids;
  const forRaw = (await createFixtureTasks(ctx, tasks, seconds)).ids;
  await waitSettled(ctx, [...forOurs, ...forRaw]);
  const answer = { x: { action: 'accept', content: {} } };
  const result = await measureInterleaved(
    tasks,
    {
      ours: async (i: number) => {
        const ack = await ctx.mcp.updateTask(forOurs[i], answer);
        if (ack.resultType !== 'complete') throw new Error(`unexpected ack ${JSON.stringify(ack)}`);
      },
      raw: (i: number) => rawSignal(ctx, forRaw[i]),
    },
    limit,
  );
  await terminateLive(ctx);
  return result;
}

export function renderUpdate({ ours, raw }: Awaited<ReturnType<typeof benchUpdate>>): string {
  return [
    '## 3. Update: tasks/update ack vs raw signal (c=1, ms)',
    markdownTable(
      ['n', 'ours p50', 'p95', 'p99', 'raw p50', 'p95', 'p99', 'ratio p50', 'ratio p99', 'errors ours/raw'],
      [
        [
          ours.n,
          ours.p50,
          ours.p95,
          ours.p99,
          raw.p50,
          raw.p95,
          raw.p99,
          ratio(ours.p50, raw.p50),
          ratio(ours.p99, raw.p99),
          `${ours.errors}/${raw.errors}`,
        ],
      ],
    ),
  ].join('\n');
}
