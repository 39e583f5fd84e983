'use strict';
/**
 * Benchmark: the MCP Tasks wire of mcp-temporal-tasks beside raw @temporalio/client calls on the
 * same Temporal dev server, in the same run. See bench/README.md for what each number means.
 *
 *   npm run bench                 full run (several minutes)
 *   BENCH_QUICK=1 npm run bench   smoke run (about a minute)
 */
const { mcpTasks } = require('./support');
const { startInfra, startSampler, machineAtStart, readTcpCounters, tcpDelta } = require('./infra');
const { terminateLive, warmUp } = require('./clients');
const { loadConfig } = require('./config');
const { connectRaw, log, now, runBench, writeResults } = require('./script');
const { benchCreate, renderCreate } = require('./measurements/create');
const { benchGet, renderGet } = require('./measurements/get');
const { benchUpdate, renderUpdate } = require('./measurements/update');
const { benchPollLoad, renderPoll } = require('./measurements/poll-load');
const { benchE2e, renderE2e } = require('./measurements/end-to-end');
const { renderResources } = require('./measurements/resources');

const SECTIONS = [
  { key: 'create', run: benchCreate, render: renderCreate },
  { key: 'get', run: benchGet, render: renderGet },
  { key: 'update', run: benchUpdate, render: renderUpdate },
  { key: 'pollLoad', run: benchPollLoad, render: renderPoll },
  { key: 'endToEnd', run: benchE2e, render: renderE2e },
];

/** BENCH_SECTIONS=create,get,... runs only those (default: all). */
function selectedSections() {
  const wanted = (process.env.BENCH_SECTIONS ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.key === w));
  if (unknown.length) throw new Error(`unknown BENCH_SECTIONS ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.key).join(', ')}`);
  return wanted.length ? SECTIONS.filter((s) => wanted.includes(s.key)) : SECTIONS;
}

/** Runs one section, recording wall time, CPU seconds per process and the server's peak RSS. */
async function runSection(ctx, section) {
  ctx.sampler.resetWindow();
  const cpu0 = ctx.sampler.cpuSnapshot();
  const tcp0 = readTcpCounters();
  const t0 = now();
  const data = await section.run(ctx);
  const cpu1 = ctx.sampler.cpuSnapshot();
  const cpuSeconds = Object.fromEntries(Object.keys(cpu1).map((k) => [k, cpu1[k] - cpu0[k]]));
  data.resources = { wallSeconds: (now() - t0) / 1000, cpuSeconds, rssPeakMb: ctx.sampler.windowPeak(), tcp: tcpDelta(tcp0) };
  console.log(`\n${section.render(data)}\n`);
  return data;
}

async function main(cleanup) {
  const cfg = loadConfig();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} run`);
  const infra = await startInfra(cleanup, { pollIntervalMs: cfg.pollIntervalMs, profileDir: cfg.profileDir });
  log(`Temporal ${infra.address}, MCP ${infra.url}, server pid ${infra.pids.server}`);
  const sampler = startSampler(infra.pids);
  cleanup.add('sampler', undefined, () => sampler.stop());
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), sampler, live: new Set() };
  try {
    await warmUp(ctx, { query: true });
    const results = {};
    for (const section of selectedSections()) results[section.key] = await runSection(ctx, section);
    console.log(`${renderResources(results, sampler.peak())}\nBackground CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core.\n`);
    writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, config: cfg, serverRssPeakMb: sampler.peak().server, rssPeakMb: sampler.peak(), results });
  } finally {
    await terminateLive(ctx).catch(() => undefined);
  }
}

runBench(main);
