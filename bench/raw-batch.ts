/**
 * How long Temporal alone takes for the end-to-end batch of bench:peer: 200 `plainTimer` (the
 * demo's waitAndEcho without the task runtime, bench/tools; BENCH_RAW_WORKFLOW=waitAndEcho: with it)
 * workflows of 1 s started at c=32 with plain @temporalio/client calls (no MCP, no polling:
 * `result()` long polls), the worker in this process, on a fresh dev server. Alternates
 * plain and eager starts (the client on the worker's NativeConnection, `requestEagerStart`),
 * on dev servers with SQLite synchronous=full and =normal, and prints the CPU Temporal used.
 *
 *   node build/bench/raw-batch.js              2 rounds of each (after a build)
 *   BENCH_RAW_ROUNDS=1 BENCH_E2E_TASKS=100 node build/bench/raw-batch.js
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, type WorkflowHandleWithStartDetails } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { BENCH_TOOLS, fromDist } from '../test/support/paths';
import type { Cleanup } from '../test/support/processes';
import { type DevServer, type DevServerOptions, startDevServerOnFreePorts, tempDbFile } from '../test/support/temporal';
import { readCpuSeconds } from './infra';
import { envInt, log, now, runBench } from './script';
import { markdownTable, summarize } from './stats';

const TASKS = envInt('BENCH_E2E_TASKS', 200);
const ROUNDS = envInt('BENCH_RAW_ROUNDS', 2);
const CONCURRENCY = 32;
const TASK_QUEUE = 'mcp-tasks';
const WORKFLOW = process.env.BENCH_RAW_WORKFLOW || 'plainTimer';

type Synchronous = NonNullable<DevServerOptions['sqliteSynchronous']>;

async function startStack(cleanup: Cleanup, synchronous: Synchronous): Promise<{ temporal: DevServer; client: Client }> {
  const { createWorker } = fromDist<typeof import('../dist/cli/worker')>('cli/worker');
  const { loadToolsModule } = fromDist<typeof import('../dist/cli/tools-module')>('cli/tools-module');
  const dbFile = tempDbFile('mtt-bench-');
  const temporal = await startDevServerOnFreePorts({ dbFile, sqliteSynchronous: synchronous });
  cleanup.add('temporal dev server', temporal.pid, async () => {
    await temporal.stop();
    fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
  });
  const connection = await NativeConnection.connect({ address: temporal.address });
  const module = loadToolsModule(BENCH_TOOLS);
  const worker = await createWorker({ connection, namespace: 'default', taskQueue: TASK_QUEUE, module });
  const running = worker.run();
  cleanup.add('worker', undefined, async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  return { temporal, client: new Client({ connection, namespace: 'default' }) };
}

/** TASKS workflows of 1 s started at c=32; resolves when all have completed. */
async function batch(stack: { temporal: DevServer; client: Client }, eager: boolean) {
  const cpu0 = readCpuSeconds(stack.temporal.pid);
  const starts: number[] = [];
  const handles: WorkflowHandleWithStartDetails[] = [];
  const t0 = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TASKS) {
        const n = next++;
        const t = now();
        const handle = await stack.client.workflow.start(WORKFLOW, {
          workflowId: `raw-batch-${eager}-${Date.now()}-${n}`,
          taskQueue: TASK_QUEUE,
          args: [{ text: 'x', seconds: 1 }],
          requestEagerStart: eager,
        });
        starts.push(now() - t);
        handles.push(handle);
      }
    }),
  );
  const createdS = (now() - t0) / 1000;
  await Promise.all(handles.map((h) => h.result()));
  return {
    eager,
    createdS,
    allS: (now() - t0) / 1000,
    start: summarize(starts),
    startedEagerly: handles.filter((h) => h.eagerlyStarted).length,
    temporalCpuS: readCpuSeconds(stack.temporal.pid) - cpu0,
  };
}

async function main(cleanup: Cleanup): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const rows: Array<{ synchronous: Synchronous } & Awaited<ReturnType<typeof batch>>> = [];
  for (const synchronous of ['full', 'normal'] as const) {
    const stack = await startStack(cleanup, synchronous);
    for (let round = 0; round < ROUNDS; round++) {
      for (const eager of [false, true]) {
        const r = await batch(stack, eager);
        log(`synchronous=${synchronous} eager=${eager}: all completed in ${r.allS.toFixed(1)} s`);
        rows.push({ synchronous, ...r });
      }
    }
  }
  console.log(`\nraw Temporal: ${TASKS} × 1 s ${WORKFLOW} started at c=${CONCURRENCY}, worker in-process, no MCP\n`);
  console.log(
    markdownTable(
      [
        'SQLite synchronous',
        'start',
        'start p50 / p99 (ms)',
        'started eagerly',
        'all created (s)',
        'all completed (s)',
        'Temporal CPU (s)',
        'Temporal CPU per workflow (ms)',
      ],
      rows.map((r) => [
        r.synchronous,
        r.eager ? 'eager' : 'plain',
        `${r.start.p50.toFixed(0)} / ${r.start.p99.toFixed(0)}`,
        r.startedEagerly,
        r.createdS,
        r.allS,
        r.temporalCpuS,
        (1000 * r.temporalCpuS) / TASKS,
      ]),
    ),
  );
}

if (require.main === module) runBench(main);
