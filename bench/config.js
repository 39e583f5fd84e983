'use strict';
/** The wire bench's configuration (bench/run.js, bench/peer/run.js): full, or BENCH_QUICK=1. */
const path = require('node:path');
const { envInt } = require('./script');

/** BENCH_QUICK=1 (a smoke run): `pick(full, small)` gives the size for this run. */
function quickOr() {
  const quick = process.env.BENCH_QUICK === '1';
  return { quick, pick: (full, small) => (quick ? small : full) };
}

function loadConfig() {
  const { quick, pick } = quickOr();
  return {
    quick,
    pollIntervalMs: 1000,
    warmupCalls: pick(20, 5),
    measureTimeLimitMs: 120_000, // per measured batch: stop starting new calls after this
    create: { levels: [1, 8, 32], calls: pick(200, 20), callsAtC1: pick(100, 20), seconds: 600 },
    get: { tasks: pick(200, 20), seconds: 600 },
    update: { tasks: pick(200, 20), seconds: 600 },
    poll: {
      liveTasks: envInt('BENCH_LIVE_TASKS', pick(1000, 100)),
      seconds: envInt('BENCH_POLL_SECONDS', pick(60, 10)),
      createConcurrency: 32,
    },
    e2e: {
      tasks: envInt('BENCH_E2E_TASKS', pick(500, 50)),
      seconds: 1,
      createConcurrency: 32,
      pollMs: envInt('BENCH_E2E_POLL_MS', 0), // 0: the pollIntervalMs the server advises
      timeoutMs: 180_000,
      unloadedTasks: pick(5, 3), // one at a time, polled every 50 ms: the floor without load
      unloadedPollMs: 50,
    },
    setupConcurrency: 32, // creating fixtures, settling, terminating
    // BENCH_PROFILE_SERVER=1: the MCP server runs under --cpu-prof (skews its latencies a little)
    profileDir: process.env.BENCH_PROFILE_SERVER === '1' ? path.join(__dirname, 'results', 'profiles') : undefined,
  };
}
module.exports = { loadConfig, quickOr };
