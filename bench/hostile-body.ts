/**
 * Another caller's latency while an attacker POSTs hostile bodies (issue 24 item 2). A victim
 * sends tools/list and tasks/get one after another; for each phase the victim's latency
 * percentiles and the attacker's answers are printed:
 *
 *   idle             no attacker
 *   nested 4 MB      8 attackers, each POSTing 4 MB of `[` in a loop (refused by the depth limit before parsing)
 *   flat 4 MB        8 attackers, each POSTing a 4 MB flat JSON string argument (parsed, then refused by the tool's schema):
 *                    the cost any big body has, for comparison
 *
 * The attackers run in a worker thread (their sending would otherwise stall the victim's own
 * event loop); on a 2-core machine they still compete with serve for CPU.
 *
 *   npm run build && node build/bench/hostile-body.js          15 s per phase
 *   BENCH_PHASE_S=5 node build/bench/hostile-body.js
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { buildRequest, type McpTasks, mcpTasks } from '../test/support/mcp-client';
import type { Cleanup } from '../test/support/processes';
import { machineBusyPercent, machineInfo, readCpuSeconds, startInfra, startSampler } from './infra';
import { logger, runBench, runInThread } from './script';
import { fmt, markdownTable, type Summary, summarize } from './stats';

const PHASE_S = Number(process.env.BENCH_PHASE_S ?? 15);
const ATTACKERS = 8;
const MB4 = 4 * 1024 * 1024 - 1024;
const log = logger('bench:hostile-body');

/** A flat body just under 4 MB, well formed but for its arguments (seconds: 'no'); its headers route as tools/call. */
const flat = buildRequest(
  'tools/call',
  { name: 'wait_and_echo', arguments: { text: 'x'.repeat(MB4 - 300), seconds: 'no' } },
  { capabilities: {}, clientName: 'attacker', id: 1 },
);
const HEADERS = flat.headers;
type Phase = 'idle' | 'nested 4 MB' | 'flat 4 MB';
const BODIES: Record<Exclude<Phase, 'idle'>, string> = {
  'nested 4 MB': '['.repeat(MB4),
  'flat 4 MB': flat.body,
};

interface Attack {
  answers: number;
  statuses: Record<string, number>;
}

async function attack(url: string, body: string, until: number): Promise<Attack> {
  const statuses: Record<string, number> = {};
  let answers = 0;
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      while (Date.now() < until) {
        try {
          const res = await fetch(url, { method: 'POST', headers: HEADERS, body });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          answers++;
        } catch {
          statuses.error = (statuses.error ?? 0) + 1;
        }
      }
    }),
  );
  return { answers, statuses };
}

async function victim(mcp: McpTasks, taskId: string, until: number): Promise<Summary> {
  const latencies: number[] = [];
  while (Date.now() < until) {
    for (const op of [() => mcp.listTools(), () => mcp.getTask(taskId)]) {
      const started = performance.now();
      await op();
      latencies.push(performance.now() - started);
    }
  }
  return summarize(latencies);
}

async function main(cleanup: Cleanup): Promise<void> {
  const busy = await machineBusyPercent();
  {
    const infra = await startInfra(cleanup, { pollIntervalMs: 1000 });
    const mcp = mcpTasks(infra.url);
    const { taskId } = await mcp.createWaitAndEcho(3600, 'victim');
    const sampler = startSampler({ serve: infra.pids.server });
    const rows: unknown[][] = [];
    for (const phase of ['idle', 'nested 4 MB', 'flat 4 MB'] as const) {
      log(`phase ${phase}, ${PHASE_S} s`);
      const until = Date.now() + PHASE_S * 1000;
      const cpuBefore = readCpuSeconds(infra.pids.server);
      const [v, a] = await Promise.all([
        victim(mcp, taskId, until),
        phase === 'idle' ? { answers: 0, statuses: {} } : runInThread<Attack>(__filename, { url: infra.url, phase, until }),
      ]);
      const serveCpu = (100 * (readCpuSeconds(infra.pids.server) - cpuBefore)) / PHASE_S;
      rows.push([
        phase,
        v.n,
        v.p50,
        v.p95,
        v.p99,
        v.max,
        serveCpu,
        `${fmt(a.answers / PHASE_S)} (${
          Object.entries(a.statuses)
            .map(([s, n]) => `${s}×${n}`)
            .join(', ') || '–'
        })`,
      ]);
    }
    const peak = { serveRssPeakMb: Math.round(sampler.peak().serve) };
    sampler.stop();
    await mcp.cancelTask(taskId).catch(() => undefined);
    console.log(`\n## Another caller under hostile bodies (${ATTACKERS} attackers, ${PHASE_S} s per phase)\n`);
    console.log(
      markdownTable(
        ['phase', 'victim requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'serve CPU %', 'attacker answers/s (HTTP status × n)'],
        rows,
      ),
    );
    console.log(
      `\nmachine: ${JSON.stringify({ ...machineInfo(), backgroundCpuPercentAtStart: busy })}; serve sampler: ${JSON.stringify(peak)}`,
    );
  }
}

if (isMainThread) runBench(main);
else {
  const { url, phase, until } = workerData as { url: string; phase: Exclude<Phase, 'idle'>; until: number };
  attack(url, BODIES[phase], until).then((r) => parentPort!.postMessage(r));
}
