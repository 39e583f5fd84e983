/**
 * `npm run bench:raw`: ours against raw Temporal on the same dev server, in one run (issue 26,
 * item 3): create vs a raw start with the same memo and search attributes (and vs a plain start),
 * tasks/get vs a raw describe(), the end-to-end batch vs the raw batch of plainTimer starts, and
 * events / workflow tasks per task from the histories. One table, each ratio with its target.
 * See bench/README.md ("Against raw Temporal").
 *
 *   npm run bench:raw                         full run (a few minutes)
 *   BENCH_QUICK=1 node build/bench/raw.js           smoke run (after a build)
 *   BENCH_DURABILITY=normal node build/bench/raw.js the dev server's SQLite at synchronous=normal
 */
import path from 'node:path';
import { mcpTasks } from '../test/support/mcp-client';
import { ROOT } from '../test/support/paths';
import type { Cleanup } from '../test/support/processes';
import { terminateLive, warmUp } from './clients';
import { durabilityClass, loadConfig } from './config';
import { machineAtStart, startInfra } from './infra';
import { benchRawBaselines, renderRawBaselines } from './measurements/raw-baselines';
import { connectRaw, log, runBench, writeResults } from './script';

const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'raw-latest.json');

async function main(cleanup: Cleanup): Promise<void> {
  const cfg = loadConfig();
  const durability = durabilityClass();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} raw-baselines run, durability ${durability.name}`);
  const infra = await startInfra(cleanup, {
    pollIntervalMs: cfg.pollIntervalMs,
    profileDir: cfg.profileDir,
    sqliteSynchronous: durability.sqliteSynchronous,
  });
  log(`Temporal ${infra.address} (SQLite synchronous=${durability.sqliteSynchronous}), MCP ${infra.url}`);
  const ctx = {
    cfg,
    mcp: mcpTasks(infra.url),
    client: await connectRaw(cleanup, infra.address),
    pids: infra.pids,
    live: new Set<string>(),
  };
  cleanup.add('tasks left running', undefined, () => terminateLive(ctx));
  await warmUp(ctx);
  const data = await benchRawBaselines(ctx);
  console.log(`\n${renderRawBaselines(data)}\n`);
  console.log(
    `Dev server SQLite synchronous=${durability.sqliteSynchronous} (BENCH_DURABILITY=${durability.name}: ${durability.means}). Machine: ${machine.nproc} × ${machine.cpuModel}; background CPU before the run ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core.\n`,
  );
  writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, durability, config: cfg, results: data }, RESULTS_FILE);
}

if (require.main === module) runBench(main, 'bench:raw');
