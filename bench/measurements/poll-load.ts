/** 4. Poll load: many live tasks, each polled with tasks/get (then raw describe()) at the advised interval. */
import { type BenchContext, createFixtureTasks, rawDescribe, terminateLive, waitSettled } from '../clients';
import type { Sampler } from '../infra';
import { pollWindow } from '../measure';
import { log } from '../script';
import { markdownTable, ratio } from '../stats';
import { sleep } from '../../test/support/wait';

export async function benchPollLoad(ctx: BenchContext & { sampler: Sampler }) {
  const { liveTasks, seconds } = ctx.cfg.poll;
  log(`poll: creating ${liveTasks} live tasks`);
  const fixtures = await createFixtureTasks(ctx, liveTasks, 600);
  await waitSettled(ctx, fixtures.ids);
  const intervalMs = fixtures.pollIntervalMs;
  log(`poll: ${liveTasks} tasks, tasks/get every ${intervalMs} ms for ${seconds} s`);
  const ours = await pollWindow(ctx, fixtures.ids, intervalMs, seconds, async (id) => (await ctx.mcp.getTask(id)).status === 'working');
  await sleep(2000); // let the server drain
  log(`poll: the same ${liveTasks} tasks, raw describe() every ${intervalMs} ms for ${seconds} s`);
  const raw = await pollWindow(
    ctx,
    fixtures.ids,
    intervalMs,
    seconds,
    async (id) => (await rawDescribe(ctx, id)).status.name === 'RUNNING',
  );
  await terminateLive(ctx);
  return { liveTasks, seconds, intervalMs, targetPerSecond: liveTasks / (intervalMs / 1000), ours, raw, create: fixtures.createStat };
}

type PollResult = Awaited<ReturnType<typeof benchPollLoad>>;

export function renderPoll(p: PollResult): string {
  const row = (name: string, r: PollResult['ours']) => [
    name,
    p.targetPerSecond,
    r.achievedPerSecond,
    r.polls,
    r.errors + r.notRunning,
    r.latency.p50,
    r.latency.p95,
    r.latency.p99,
    r.latency.max,
    r.scheduleLag.p99,
    r.serverRssBeforeMb,
    r.serverRssPeakMb,
  ];
  const cpuRow = (name: string, r: PollResult['ours']) => [
    name,
    r.cpuPercent.server,
    r.cpuPercent.worker,
    r.cpuPercent.temporal,
    r.cpuPercent.bench,
    r.cpuPercent.irq,
    r.cpuPercent.others,
    r.cpuPercent.machine,
    r.tcp.activeOpens,
    r.tcp.listenOverflows,
    r.tcp.synRetrans,
  ];
  return [
    `## 4. Poll load: ${p.liveTasks} live tasks, each polled every ${p.intervalMs} ms for ${p.seconds} s`,
    markdownTable(
      [
        'poll',
        'target polls/s',
        'achieved polls/s',
        'polls',
        'errors',
        'p50',
        'p95',
        'p99',
        'max',
        'schedule lag p99',
        'server RSS before (MB)',
        'server RSS peak (MB)',
      ],
      [row('tasks/get (ours)', p.ours), row('raw describe()', p.raw)],
    ),
    '',
    'CPU while polling (% of one core; machine = all cores; others = processes not started by this run and kernel threads) and TCP counters (machine-wide):',
    markdownTable(
      [
        'poll',
        'server',
        'worker',
        'temporal',
        'bench client',
        'irq/softirq',
        'others',
        'machine',
        'TCP connects',
        'listen overflows',
        'SYN retransmits',
      ],
      [cpuRow('tasks/get (ours)', p.ours), cpuRow('raw describe()', p.raw)],
    ),
    '',
    `Ratio achieved polls/s ours/raw: ${ratio(p.ours.achievedPerSecond, p.raw.achievedPerSecond).toFixed(2)}; p50 latency ours/raw: ${ratio(p.ours.latency.p50, p.raw.latency.p50).toFixed(2)}.`,
    `Creating the ${p.liveTasks} tasks at c=${p.create.concurrency}: ${p.create.perSecond?.toFixed(0)}/s, p50 ${p.create.p50.toFixed(1)} ms, p99 ${p.create.p99.toFixed(1)} ms.`,
  ].join('\n');
}
