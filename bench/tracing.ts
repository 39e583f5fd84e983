/**
 * What tracing costs (issue 35, item 6): latency and CPU of create (tools/call → CreateTaskResult)
 * and of a polled tasks/get, with traces off and on at sampling 1.0 (OTEL_TRACES_SAMPLER=always_on,
 * every span exported over OTLP/HTTP to a sink in this process that answers 200 at once, so the
 * collector's own work is not counted). Each mode gets its own stack (dev server, worker, serve);
 * the modes alternate off, on, off, on and each mode's two rounds are merged, against drift.
 *
 *   npm run bench:tracing                 BENCH_TRACING_CALLS calls per row and round (default 200)
 */
import http from 'node:http';
import os from 'node:os';
import { mcpTasks } from '../test/support/mcp-client';
import { freePort, HOST } from '../test/support/ports';
import { Cleanup } from '../test/support/processes';
import { startProcessStack } from '../test/support/servers';
import { BENCH_TOOLS } from '../test/support/paths';
import { machineAtStart, readCpuSeconds } from './infra';
import { type Measured, measure, mergeRuns } from './measure';
import { envInt, log, runBench } from './script';
import { markdownTable } from './stats';

type Mode = 'off' | 'on';
const ROWS = ['create c=1', 'create c=8', 'polled tasks/get c=1'] as const;
type Row = (typeof ROWS)[number];

interface Round {
  runs: Record<Row, Measured<unknown>>;
  /** serve's and the worker's CPU ms per call of each row. */
  cpuMs: Record<Row, { serve: number; worker: number }>;
}

async function main(cleanup: Cleanup): Promise<void> {
  const calls = envInt('BENCH_TRACING_CALLS', 200);
  const machine = await machineAtStart(log, 'tracing bench');
  const sink = await startSink(cleanup);
  const rounds: Record<Mode, Round[]> = { off: [], on: [] };
  for (const mode of ['off', 'on', 'off', 'on'] as const) rounds[mode].push(await round(cleanup, mode, calls, sink.url));
  console.log(`\n${render(rounds)}\n`);
  console.log(`Spans received by the sink: ${sink.requests()} OTLP requests, ${(sink.bytes() / 1e6).toFixed(1)} MB.`);
  console.log(
    `Background CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core; load average ${loadAverage()}.`,
  );
}

async function round(parent: Cleanup, mode: Mode, calls: number, sinkUrl: string): Promise<Round> {
  const cleanup = new Cleanup();
  parent.add(`stack (${mode})`, undefined, () => cleanup.run());
  const otel = mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'always_on' } : {};
  const stack = await startProcessStack(cleanup, { toolsModule: BENCH_TOOLS, env: otel, keepOutput: 16 * 1024 });
  log(`tracing ${mode}: ${stack.url}`);
  const mcp = mcpTasks(stack.url);
  await measure(20, 4, () => mcp.createWaitAndEcho(1)); // warm-up: JIT, connections, the workflow cache
  const polled = (await mcp.createWaitAndEcho(3600)).taskId as string;
  const work: Record<Row, () => Promise<unknown>> = {
    'create c=1': () => mcp.createWaitAndEcho(1),
    'create c=8': () => mcp.createWaitAndEcho(1),
    'polled tasks/get c=1': () => mcp.getTask(polled),
  };
  const runs = {} as Round['runs'];
  const cpuMs = {} as Round['cpuMs'];
  for (const row of ROWS) {
    const before = cpuOf(stack.pids);
    runs[row] = await measure(calls, row === 'create c=8' ? 8 : 1, work[row]);
    const after = cpuOf(stack.pids);
    cpuMs[row] = { serve: ((after.serve - before.serve) * 1000) / calls, worker: ((after.worker - before.worker) * 1000) / calls };
  }
  await cleanup.run();
  return { runs, cpuMs };
}

const cpuOf = (pids: { server: number; worker: number }) => ({ serve: readCpuSeconds(pids.server), worker: readCpuSeconds(pids.worker) });

function render(rounds: Record<Mode, Round[]>): string {
  const rows = ROWS.flatMap((row) =>
    (['off', 'on'] as const).map((mode) => {
      const stat = mergeRuns(rounds[mode].map((r) => r.runs[row]));
      const cpu = (who: 'serve' | 'worker') => rounds[mode].reduce((a, r) => a + r.cpuMs[row][who], 0) / rounds[mode].length;
      return [row, mode, stat.n, stat.p50, stat.p95, stat.p99, stat.perSecond, cpu('serve'), cpu('worker'), stat.errors];
    }),
  );
  return [
    '## Tracing overhead: traces off vs on (sampling 1.0, OTLP/HTTP to a sink) (ms)',
    markdownTable(['row', 'traces', 'n', 'p50', 'p95', 'p99', 'calls/s', 'serve CPU ms/call', 'worker CPU ms/call', 'errors'], rows),
    'A created task runs wait_and_echo (1 s): its workflow, activity and their spans are in the worker CPU of the create rows.',
  ].join('\n\n');
}

/** An OTLP/HTTP receiver that counts and drops: the bench measures the exporters, not a collector. */
async function startSink(cleanup: Cleanup) {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  cleanup.add('OTLP sink', undefined, () => new Promise((resolve) => server.close(resolve)));
  return { url: `http://${HOST}:${port}`, requests: () => requests, bytes: () => bytes };
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

runBench(main, 'tracing bench');
