/**
 * Benchmark: the MCP Tasks wire of mcp-temporal-tasks beside raw @temporalio/client calls on the
 * same Temporal dev server, in the same run. See bench/README.md for what each number means.
 *
 *   npm run bench                 full run (several minutes)
 *   BENCH_QUICK=1 npm run bench   smoke run (about a minute)
 */
import { mcpTasks } from '../test/support/mcp-client';
import type { Cleanup } from '../test/support/processes';
import { type BenchContext, terminateLive, warmUp } from './clients';
import { loadConfig } from './config';
import { machineAtStart, readTcpCounters, type Sampler, startSampler, startInfra, tcpDelta } from './infra';
import { connectRaw, log, now, runBench, writeResults } from './script';
import { benchCreate, renderCreate } from './measurements/create';
import { benchGet, renderGet } from './measurements/get';
import { benchUpdate, renderUpdate } from './measurements/update';
import { benchPollLoad, renderPoll } from './measurements/poll-load';
import { benchE2e, renderE2e } from './measurements/end-to-end';
import { renderResources, type SectionResources } from './measurements/resources';

type RunContext = BenchContext & { sampler: Sampler };
type SectionData = object & { resources?: SectionResources };

/** A measurement and its table, over whatever data it returns. */
function section<T extends object>(key: string, run: (ctx: RunContext) => Promise<T>, render: (data: T) => string) {
  return { key, run: run as (ctx: RunContext) => Promise<SectionData>, render: render as (data: SectionData) => string };
}

const SECTIONS = [
  section('create', benchCreate, renderCreate),
  section('get', benchGet, renderGet),
  section('update', benchUpdate, renderUpdate),
  section('pollLoad', benchPollLoad, renderPoll),
  section('endToEnd', benchE2e, renderE2e),
];

/** BENCH_SECTIONS=create,get,... runs only those (default: all). */
function selectedSections() {
  const wanted = (process.env.BENCH_SECTIONS ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.key === w));
  if (unknown.length) throw new Error(`unknown BENCH_SECTIONS ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.key).join(', ')}`);
  return wanted.length ? SECTIONS.filter((s) => wanted.includes(s.key)) : SECTIONS;
}

/** Runs one section, recording wall time, CPU seconds per process and the server's peak RSS. */
async function runSection(ctx: RunContext, section: (typeof SECTIONS)[number]): Promise<SectionData & { resources: SectionResources }> {
  ctx.sampler.resetWindow();
  const cpu0 = ctx.sampler.cpuSnapshot();
  const tcp0 = readTcpCounters();
  const t0 = now();
  const data = await section.run(ctx);
  const cpu1 = ctx.sampler.cpuSnapshot();
  const cpuSeconds = Object.fromEntries(Object.keys(cpu1).map((k) => [k, cpu1[k] - cpu0[k]]));
  const measured = Object.assign(data, {
    resources: { wallSeconds: (now() - t0) / 1000, cpuSeconds, rssPeakMb: ctx.sampler.windowPeak(), tcp: tcpDelta(tcp0) },
  });
  console.log(`\n${section.render(measured)}\n`);
  return measured;
}

async function main(cleanup: Cleanup): Promise<void> {
  const cfg = loadConfig();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} run`);
  const infra = await startInfra(cleanup, { pollIntervalMs: cfg.pollIntervalMs, profileDir: cfg.profileDir });
  log(`Temporal ${infra.address}, MCP ${infra.url}, server pid ${infra.pids.server}`);
  const sampler = startSampler(infra.pids);
  cleanup.add('sampler', undefined, () => sampler.stop());
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), sampler, live: new Set<string>() };
  try {
    await warmUp(ctx, { query: true });
    const results: Record<string, { resources: SectionResources }> = {};
    for (const section of selectedSections()) results[section.key] = await runSection(ctx, section);
    console.log(
      `${renderResources(results, sampler.peak())}\nBackground CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core.\n`,
    );
    writeResults({
      startedAt,
      finishedAt: new Date().toISOString(),
      machine,
      config: cfg,
      serverRssPeakMb: sampler.peak().server,
      rssPeakMb: sampler.peak(),
      results,
    });
  } finally {
    await terminateLive(ctx).catch(() => undefined);
  }
}

runBench(main);
