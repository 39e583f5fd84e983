/** What every bench script shares: logging, integer settings, the raw Temporal client, results files, running as a script. */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Client, Connection } from '@temporalio/client';
import { ROOT } from '../test/support/paths';
import { Cleanup } from '../test/support/processes';

export const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'latest.json');
export const now = () => performance.now();

/** A log function printing `[name hh:mm:ss] msg` to stderr (stdout carries the tables). */
export const logger =
  (name: string) =>
  (msg: string): void =>
    console.error(`[${name} ${new Date().toISOString().slice(11, 19)}] ${msg}`);
export const log = logger('bench');

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

export async function connectRaw(cleanup: Cleanup, address: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  cleanup.add('raw Temporal connection', undefined, () => connection.close());
  return new Client({ connection, namespace: 'default' });
}

export function writeResults(report: unknown, file = RESULTS_FILE): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`results written to ${path.relative(process.cwd(), file)}`);
}

export function installSignalHandlers(cleanup: Cleanup): void {
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping everything`);
    cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.on('exit', () => cleanup.killLeftovers());
}

/** Runs main(cleanup) as a script: everything it started is stopped, also on errors and signals. */
export function runBench(main: (cleanup: Cleanup) => Promise<unknown>, name = 'bench'): void {
  const cleanup = new Cleanup();
  installSignalHandlers(cleanup);
  main(cleanup)
    .then(
      () => 0,
      (err) => {
        console.error(`${name} failed: ${(err as Error).stack ?? err}`);
        return 1;
      },
    )
    .then(async (code) => {
      await cleanup.run();
      process.exit(code);
    });
}

/**
 * Runs `file` in a worker thread with workerData; resolves with the first message it posts. Load
 * generators run there so that building and sending their requests does not stall the measuring
 * event loop.
 */
export function runInThread<T>(file: string, data: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(file, { workerData: data });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
