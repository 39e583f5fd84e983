'use strict';
/** What every bench script shares: logging, integer settings, the raw Temporal client, results files, running as a script. */
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Worker } = require('node:worker_threads');
const { Client, Connection } = require('@temporalio/client');
const { Cleanup } = require('./support');

const RESULTS_FILE = path.join(__dirname, 'results', 'latest.json');
const now = () => performance.now();

/** A log function printing `[name hh:mm:ss] msg` to stderr (stdout carries the tables). */
const logger = (name) => (msg) => console.error(`[${name} ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const log = logger('bench');

function envInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

async function connectRaw(cleanup, address) {
  const connection = await Connection.connect({ address });
  cleanup.add('raw Temporal connection', undefined, () => connection.close());
  return new Client({ connection, namespace: 'default' });
}

function writeResults(report, file = RESULTS_FILE) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`results written to ${path.relative(process.cwd(), file)}`);
}

function installSignalHandlers(cleanup) {
  const onSignal = (signal) => {
    log(`${signal}: stopping everything`);
    cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.on('exit', () => cleanup.killLeftovers());
}

/** Runs main(cleanup) as a script: everything it started is stopped, also on errors and signals. */
function runBench(main, name = 'bench') {
  const cleanup = new Cleanup();
  installSignalHandlers(cleanup);
  main(cleanup)
    .then(() => 0, (err) => {
      console.error(`${name} failed: ${err.stack ?? err}`);
      return 1;
    })
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
function runInThread(file, data) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(file, { workerData: data });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

module.exports = { now, logger, log, envInt, connectRaw, writeResults, installSignalHandlers, runBench, runInThread, RESULTS_FILE };
