/**
 * What metrics cost (issue 35, item 6): create (tools/call → CreateTaskResult) and a polled
 * tasks/get against two `serve` processes on one Temporal and worker, one with metrics on and
 * scraped every second (more often than any Prometheus would), one with --no-metrics. The halves
 * alternate (on, off, off, on) against drift. Prints latency and the server's CPU per request.
 *
 *   npm run bench:metrics                 BENCH_CALLS=n (default 400 per row), BENCH_CONCURRENCY (4)
 */
import os from 'node:os';
import { mcpTasks } from '../test/support/mcp-client';
import { startServe } from '../test/support/servers';
import type { Cleanup } from '../test/support/processes';
import { machineAtStart, readCpuSeconds, startInfra } from './infra';
import { type Measured, measure, mergeRuns } from './measure';
import { envInt, log, runBench } from './script';
import { markdownTable, median } from './stats';

type Mode = 'on' | 'off';
interface Server {
  mcp: ReturnType<typeof mcpTasks>;
  pid: number;
}

/** One half of a row: the calls' latencies and the server's CPU seconds over them. */
async function half(server: Server, calls: number, concurrency: number, fn: (s: Server) => Promise<unknown>) {
  const cpu0 = readCpuSeconds(server.pid);
  const measured = await measure(calls, concurrency, () => fn(server), 300_000);
  return { measured, cpuSeconds: readCpuSeconds(server.pid) - cpu0 };
}

async function row(servers: Record<Mode, Server>, calls: number, concurrency: number, fn: (s: Server) => Promise<unknown>) {
  const runs: Record<Mode, Array<Awaited<ReturnType<typeof half>>>> = { on: [], off: [] };
  for (const mode of ['on', 'off', 'off', 'on'] as Mode[])
    runs[mode].push(await half(servers[mode], Math.ceil(calls / 2), concurrency, fn));
  const summary = (mode: Mode) => {
    const stat = mergeRuns(runs[mode].map((r) => r.measured as Measured<unknown>));
    const cpuMsPerCall = (1000 * runs[mode].reduce((a, r) => a + r.cpuSeconds, 0)) / stat.n;
    return { stat, cpuMsPerCall };
  };
  return { on: summary('on'), off: summary('off') };
}

async function main(cleanup: Cleanup): Promise<void> {
  const calls = envInt('BENCH_CALLS', 400);
  const concurrency = envInt('BENCH_CONCURRENCY', 4);
  const machine = await machineAtStart(log, 'metrics overhead');
  const stack = await startInfra(cleanup, { pollIntervalMs: 1000 });
  const serveArgs = ['--poll-interval-ms', '1000', '--max-running-tasks-per-caller', '0'];
  const off = await startServe(stack.address, [...serveArgs, '--no-metrics'], stack.env, { cleanup });
  const servers: Record<Mode, Server> = {
    on: { mcp: mcpTasks(stack.url), pid: stack.pids.server },
    off: { mcp: mcpTasks(off.url), pid: off.proc.pid },
  };
  const metricsUrl = stack.url.replace(/\/mcp$/, '/metrics');
  const scrapes: number[] = [];
  const scraper = setInterval(() => {
    const t = performance.now();
    void fetch(metricsUrl)
      .then((r) => r.text())
      .then(() => scrapes.push(performance.now() - t));
  }, 1000);
  cleanup.add('scraper', undefined, async () => clearInterval(scraper));
  // a running task per server, polled: after its second read, tasks/get is answered from its watch
  const polled = {
    on: (await servers.on.mcp.createWaitAndEcho(3600)).taskId as string,
    off: (await servers.off.mcp.createWaitAndEcho(3600)).taskId as string,
  };
  for (const mode of ['on', 'off'] as Mode[]) for (let i = 0; i < 20; i++) await servers[mode].mcp.getTask(polled[mode]);
  log(`create: ${calls} calls at c=${concurrency}, metrics on and off`);
  const create = await row(servers, calls, concurrency, (s) => s.mcp.createWaitAndEcho(3600));
  log(`polled tasks/get: ${calls} calls at c=${concurrency}, metrics on and off`);
  const get = await row(servers, calls, concurrency, (s) => s.mcp.getTask(s === servers.on ? polled.on : polled.off));
  clearInterval(scraper);
  const lines = [create, get].flatMap((r, i) =>
    (['off', 'on'] as Mode[]).map((mode) => [
      i === 0 ? 'create' : 'polled tasks/get',
      mode === 'on' ? 'on (scraped every 1 s)' : 'off (--no-metrics)',
      r[mode].stat.n,
      r[mode].stat.p50,
      r[mode].stat.p95,
      r[mode].stat.perSecond,
      r[mode].cpuMsPerCall,
      r[mode].stat.errors,
    ]),
  );
  console.log(
    `\n${markdownTable(['request', 'metrics', 'n', 'p50 ms', 'p95 ms', 'req/s', 'serve CPU ms/req', 'errors'], lines)}\n` +
      `Scrapes: ${scrapes.length}, p50 ${median(scrapes).toFixed(1)} ms. Background CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}.\n`,
  );
}

runBench(main, 'bench:metrics');
