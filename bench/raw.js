'use strict';
/**
 * `npm run bench:raw`: ours against raw Temporal on the same dev server, in one run (issue 26,
 * item 3): create vs a raw start with the same memo and search attributes (and vs a plain start),
 * tasks/get vs a raw describe(), the end-to-end batch vs the raw batch of plainTimer starts, and
 * events / workflow tasks per task from the histories. One table, each ratio with its target.
 * See bench/README.md ("Against raw Temporal").
 *
 *   npm run bench:raw                         full run (a few minutes)
 *   BENCH_QUICK=1 node bench/raw.js           smoke run (after a build)
 *   BENCH_DURABILITY=normal node bench/raw.js the dev server's SQLite at synchronous=normal
 */
const path = require('node:path');
const { terminateLive, warmUp } = require('./clients');
const { durabilityClass, loadConfig } = require('./config');
const { machineAtStart, startInfra } = require('./infra');
const { benchRawBaselines, renderRawBaselines } = require('./measurements/raw-baselines');
const { connectRaw, log, runBench, writeResults } = require('./script');
const { mcpTasks } = require('./support');

const RESULTS_FILE = path.join(__dirname, 'results', 'raw-latest.json');

async function main(cleanup) {
  const cfg = loadConfig();
  const durability = durabilityClass();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} raw-baselines run, durability ${durability.name}`);
  const infra = await startInfra(cleanup, { pollIntervalMs: cfg.pollIntervalMs, profileDir: cfg.profileDir, sqliteSynchronous: durability.sqliteSynchronous });
  log(`Temporal ${infra.address} (SQLite synchronous=${durability.sqliteSynchronous}), MCP ${infra.url}`);
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), pids: infra.pids, live: new Set() };
  cleanup.add('tasks left running', undefined, () => terminateLive(ctx));
  await warmUp(ctx);
  const data = await benchRawBaselines(ctx);
  console.log(`\n${renderRawBaselines(data)}\n`);
  console.log(`Dev server SQLite synchronous=${durability.sqliteSynchronous} (BENCH_DURABILITY=${durability.name}: ${durability.means}). Machine: ${machine.nproc} × ${machine.cpuModel}; background CPU before the run ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core.\n`);
  writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, durability, config: cfg, results: data }, RESULTS_FILE);
}

if (require.main === module) runBench(main, 'bench:raw');
