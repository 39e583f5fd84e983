/** The wire bench's configuration (bench/run.ts, bench/peer/run.ts): full, or BENCH_QUICK=1. */
import path from 'node:path';
import { ROOT } from '../test/support/paths';
import { envInt } from './script';

/** BENCH_QUICK=1 (a smoke run): `pick(full, small)` gives the size for this run. */
export function quickOr() {
  const quick = process.env.BENCH_QUICK === '1';
  return { quick, pick: <T>(full: T, small: T): T => (quick ? small : full) };
}

/**
 * The durability class a run compares (BENCH_DURABILITY): `full` (default) is Temporal's SQLite
 * synchronous=full, against Redis appendfsync always: an acknowledged write survives power loss;
 * `normal` is synchronous=normal against appendfsync everysec (Redis' recommended setting): an
 * acknowledged write survives any process crash, the last commits may be lost on power loss.
 */
export const DURABILITY: Record<string, { sqliteSynchronous: 'full' | 'normal'; appendfsync: string; means: string }> = {
  full: {
    sqliteSynchronous: 'full',
    appendfsync: 'always',
    means: 'every acknowledged write is on disk before the answer and survives power loss',
  },
  normal: {
    sqliteSynchronous: 'normal',
    appendfsync: 'everysec',
    means: 'an acknowledged write survives any process crash; the last commits may be lost on power loss',
  },
};

export function durabilityClass() {
  const name = process.env.BENCH_DURABILITY || 'full';
  if (!DURABILITY[name]) throw new Error(`BENCH_DURABILITY must be one of ${Object.keys(DURABILITY).join(', ')}, got ${name}`);
  return { name, ...DURABILITY[name] };
}

export type BenchConfig = ReturnType<typeof loadConfig>;

export function loadConfig() {
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
    // bench:raw (bench/measurements/raw-baselines.ts): the hot paths at c=1 interleaved per call,
    // the end-to-end batch A/B against the raw batch, histories of the batch's tasks
    raw: {
      calls: envInt('BENCH_RAW_CALLS', pick(200, 20)),
      getTasks: envInt('BENCH_RAW_CALLS', pick(200, 20)),
      // the shape of batchE2e's config; polled every 250 ms, as bench:peer's batch
      e2e: {
        tasks: envInt('BENCH_E2E_TASKS', pick(200, 50)),
        seconds: 1,
        createConcurrency: 32,
        pollMs: envInt('BENCH_E2E_POLL_MS', 250),
        timeoutMs: 180_000,
      },
      rounds: envInt('BENCH_RAW_ROUNDS', pick(2, 1)), // each round: ours, raw, then raw, ours
      historySample: pick(20, 5),
    },
    setupConcurrency: 32, // creating fixtures, settling, terminating
    profileDir: serverProfileDir(),
  };
}

/** Node flags from a space-separated variable. */
const nodeArgsFrom = (variable: string) => process.env[variable]?.split(' ').filter(Boolean) ?? [];

/** BENCH_SERVE_NODE_ARGS: Node flags for ours' MCP server (e.g. `--max-semi-space-size=4`). */
export const serveNodeArgs = () => nodeArgsFrom('BENCH_SERVE_NODE_ARGS');

/** BENCH_WORKER_NODE_ARGS: Node flags for ours' worker (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`). */
export const workerNodeArgs = () => nodeArgsFrom('BENCH_WORKER_NODE_ARGS');

/** BENCH_PROFILE_SERVER=1: the MCP server runs under --cpu-prof (skews its latencies a little) and writes here. */
export const serverProfileDir = () =>
  process.env.BENCH_PROFILE_SERVER === '1' ? path.join(ROOT, 'bench', 'results', 'profiles') : undefined;
