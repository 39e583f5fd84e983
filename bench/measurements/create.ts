/** 1. Create: tools/call → CreateTaskResult beside raw workflow.start (plain, and with the options the server sends). */
import { type BenchContext, createOurs, startRaw, startRawLikeServer, terminateLive } from '../clients';
import { type Measured, measure, mergeRuns, type Stat } from '../measure';
import { log } from '../script';
import { markdownTable, ratio } from '../stats';

export async function benchCreate(ctx: BenchContext) {
  const { levels, calls, callsAtC1, seconds } = ctx.cfg.create;
  const limit = ctx.cfg.measureTimeLimitMs;
  const rows: Array<{ concurrency: number; ours: Stat; raw: Stat; rawLikeServer: Stat }> = [];
  for (const concurrency of levels) {
    const n = concurrency === 1 ? callsAtC1 : calls;
    log(`create: ${n} calls at c=${concurrency} (of each kind)`);
    const kinds = { ours: createOurs, raw: startRaw, rawLikeServer: startRawLikeServer };
    type Kind = keyof typeof kinds;
    const runs: Record<Kind, Array<Measured<unknown>>> = { ours: [], raw: [], rawLikeServer: [] };
    // two halves, in order ours, raw, raw+options and then reversed, against drift
    const names = Object.keys(kinds) as Kind[];
    for (const order of [names, [...names].reverse()]) {
      for (const kind of order) runs[kind].push(await measure(Math.ceil(n / 2), concurrency, () => kinds[kind](ctx, seconds), limit));
      await terminateLive(ctx);
    }
    rows.push({ concurrency, ours: mergeRuns(runs.ours), raw: mergeRuns(runs.raw), rawLikeServer: mergeRuns(runs.rawLikeServer) });
  }
  const toolsList = (await measure(callsAtC1, 1, () => ctx.mcp.listTools(), limit)).stat;
  return { rows, toolsList };
}

export function renderCreate({ rows, toolsList }: Awaited<ReturnType<typeof benchCreate>>): string {
  const main = markdownTable(
    [
      'c',
      'n',
      'ours p50',
      'p95',
      'p99',
      'ours/s',
      'raw p50',
      'p95',
      'p99',
      'raw/s',
      'ratio p50',
      'ratio p95',
      'ratio p99',
      'ratio /s',
      'errors ours/raw',
    ],
    rows.map(({ concurrency, ours, raw }) => [
      concurrency,
      ours.n,
      ours.p50,
      ours.p95,
      ours.p99,
      ours.perSecond,
      raw.p50,
      raw.p95,
      raw.p99,
      raw.perSecond,
      ratio(ours.p50, raw.p50),
      ratio(ours.p95, raw.p95),
      ratio(ours.p99, raw.p99),
      ratio(ours.perSecond, raw.perSecond),
      `${ours.errors}/${raw.errors}`,
    ]),
  );
  const explain = markdownTable(
    ['c', 'raw+server options p50', 'p95', 'p99', '/s', 'ours / raw+options p50', 'ours − raw+options p50 (ms)'],
    rows.map(({ concurrency, ours, rawLikeServer: r }) => [
      concurrency,
      r.p50,
      r.p95,
      r.p99,
      r.perSecond,
      ratio(ours.p50, r.p50),
      ours.p50 - r.p50,
    ]),
  );
  return [
    '## 1. Create: tools/call → CreateTaskResult vs raw workflow.start (ms)',
    main,
    '',
    'Where the difference goes: raw start with the same options the server sends (memo, staticSummary, search attributes, id policies):',
    explain,
    '',
    `MCP floor (tools/list, no Temporal call, c=1, n=${toolsList.n}): p50 ${toolsList.p50.toFixed(2)} ms, p95 ${toolsList.p95.toFixed(2)} ms, p99 ${toolsList.p99.toFixed(2)} ms`,
  ].join('\n');
}
