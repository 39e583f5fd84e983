/**
 * `npm run bench:peer`: this project's stack and its peers side by side in one run, A/B
 * interleaved: lastmile-ai's mcp-agent 0.2.6 (tools run as Temporal workflows, on the same
 * Temporal dev server as ours, driven through its `workflows-run` / `workflows-get_status` tools
 * by bench/peer/mcp-agent-client.ts) and FastMCP 4.1.4 + fastmcp-tasks 4.1.4 on Redis/Docket (the
 * same raw-wire client as ours, test/support/mcp-client.ts). The FastMCP peer's Redis runs twice:
 * without persistence, and with appendonly + the appendfsync of the run's durability class
 * (BENCH_DURABILITY=full: Temporal's SQLite synchronous=full against appendfsync always; =normal:
 * synchronous=normal against appendfsync everysec). See bench/README.md ("Peer comparison").
 *
 *   npm run bench:peer   (node build/bench/peer/install.js && node build/bench/peer/run.js, after a build)
 *   BENCH_QUICK=1 ...            smoke run (a few minutes)
 */
import path from 'node:path';
import { ROOT } from '../../test/support/paths';
import type { Cleanup } from '../../test/support/processes';
import * as bench from '../clients';
import { machineAtStart, startSampler, untilQuiet } from '../infra';
import { measure } from '../measure';
import { log, now, runBench, writeResults } from '../script';
import { ensurePeer } from './install';
import { type PeerResults, render, STACKS } from './report';
import { abba, e2e, pollLoad, scenarioCreate, scenarioGet, scenarioHistory } from './scenarios';
import { workerKill } from './worker-kill';
import { loadPeerConfig } from './config';
import { startMcpAgent, startOurs, startPeer } from './stacks';

// the table, for its unit test (test/unit/bench-peer-table.test.ts)
export { peerRows } from './report';

const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'peer-latest.json');

const SECTIONS = ['history', 'create', 'get', 'poll', 'e2e', 'kill'];

/** BENCH_SECTIONS=create,get,... runs only those (default: all). */
function selectedSections() {
  const wanted = (process.env.BENCH_SECTIONS ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const unknown = wanted.filter((w) => !SECTIONS.includes(w));
  if (unknown.length) throw new Error(`unknown BENCH_SECTIONS ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  return new Set(wanted.length ? wanted : SECTIONS);
}

// ---- main -----------------------------------------------------------------------------------

async function main(cleanup: Cleanup): Promise<void> {
  const cfg = loadPeerConfig();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} peer run, durability ${cfg.durability.name}`);
  const installed = ensurePeer();
  // BENCH_STACKS=ours,mcp-agent (a comma list) for tuning runs; ours is always there
  const wanted = (process.env.BENCH_STACKS || STACKS.join(',')).split(',').map((x) => x.trim());
  const unknown = wanted.filter((w) => !STACKS.includes(w));
  if (unknown.length) throw new Error(`unknown BENCH_STACKS ${unknown.join(', ')}; known: ${STACKS.join(', ')}`);
  const ours = await startOurs(cleanup, cfg);
  const stacks = [ours];
  if (wanted.includes('mcp-agent')) stacks.push(await startMcpAgent(cleanup, installed, cfg, ours));
  for (const mode of ['nofsync', 'fsync'] as const)
    if (wanted.includes(`peer-${mode}`)) stacks.push(await startPeer(cleanup, installed, cfg, mode));
  log(`stacks up: ${stacks.map((s) => `${s.key} ${JSON.stringify(s.pids)}`).join(', ')}`);
  // the shared Temporal dev server is sampled once
  const all = startSampler(
    Object.fromEntries(
      stacks.flatMap((s) => Object.entries(s.pids).map(([n, pid]) => [n.startsWith('temporal') ? n : `${s.key}.${n}`, pid])),
    ),
  );
  const cpu0 = all.cpuSnapshot();
  const t0 = now();
  log('warm-up');
  for (const s of stacks) {
    await measure(cfg.warmupCalls, 1, () => bench.createOurs(s.ctx, 600));
    await measure(cfg.warmupCalls, 1, () => s.ctx.mcp.listTools());
    await s.clearLive();
  }
  const r: PeerResults = {
    durability: cfg.durability,
    peer: {
      packages: installed.packages,
      redis: installed.redis.version.split(' ').slice(0, 3).join(' '),
      mcpAgent: installed.mcpAgent.packages,
    },
  };
  const sections = selectedSections();
  if (sections.has('history')) r.history = await scenarioHistory(stacks, ours, cfg);
  if (sections.has('create')) r.create = await scenarioCreate(stacks, ours, cfg);
  if (sections.has('get')) r.get = await scenarioGet(stacks, ours, cfg);
  if (sections.has('poll')) r.poll = await abba(stacks, (s) => pollLoad(s, cfg));
  if (sections.has('e2e')) {
    log(`e2e: the machine quiet first (${(await untilQuiet()).toFixed(0)}% of a core busy)`);
    r.e2e = await abba(stacks, (s) => e2e(s, cfg, ours, () => all.cpuSnapshot()), cfg.e2e.rounds);
  }
  if (sections.has('kill')) {
    // last: it replaces the workers; once per stack (a count, not a timing)
    r.kill = {};
    r.killIdle = {};
    r.killIdleS = cfg.kill.idleMs / 1000;
    r.killTuned = {};
    r.tunedRedeliverySeconds = cfg.tunedRedeliverySeconds;
    for (const s of stacks) {
      r.kill[s.key] = await workerKill(s, cfg, 'busy');
      r.killIdle[s.key] = await workerKill(s, cfg, 'idle');
    }
    for (const s of stacks.filter((x) => x.key.startsWith('peer-'))) r.killTuned[s.key] = await workerKill(s, cfg, 'busy', true);
  }
  // restarted workers have new pids: `all` still holds the old ones, so the others figure is approximate
  const cpu1 = all.cpuSnapshot();
  const wall = (now() - t0) / 1000;
  const ownCpu = Object.keys(cpu1)
    .filter((k) => k.includes('.') || k === 'bench' || k.startsWith('temporal'))
    .reduce((a, k) => a + (cpu1[k] - cpu0[k] || 0), 0);
  r.othersCpuPercent = (100 * (cpu1.machine - cpu0.machine - ownCpu)) / wall;
  all.stop();
  console.log(`\n${render(r, machine)}\n`);
  writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, config: cfg, results: r }, RESULTS_FILE);
}

if (require.main === module) runBench(main, 'bench:peer');
