/** bench:peer's sizes: the wire bench's (bench/config.ts) where the peer run measures the same, and its own. */
import { durabilityClass, loadConfig, quickOr } from '../config';
import { envInt } from '../script';

/** The pollIntervalMs our server advises in this bench (serve's --poll-interval-ms; also its default). */
export const ADVISED_POLL_MS = 1000;

/** The wire bench's sizes (bench/config.ts) where the peer run measures the same, and its own. */
export function loadPeerConfig() {
  const { pick } = quickOr();
  const wire = loadConfig();
  return {
    quick: wire.quick,
    // the durability class compared (bench/config.ts): SQLite synchronous and Redis appendfsync
    durability: durabilityClass(),
    setupConcurrency: wire.setupConcurrency,
    warmupCalls: wire.warmupCalls,
    // a smoke run makes more create and get calls than the wire bench's: two stacks share it
    create: { ...wire.create, calls: pick(200, 40) },
    get: { ...wire.get, tasks: pick(200, 30) },
    poll: { liveTasks: envInt('BENCH_LIVE_TASKS', pick(1000, 100)), seconds: envInt('BENCH_POLL_SECONDS', pick(30, 10)), intervalMs: 1000 },
    // the shape of batchE2e's config in bench/config.ts; every stack polled at the interval ours
    // advises, open loop, as a client following pollIntervalMs does (the same reads for every stack)
    e2e: {
      tasks: envInt('BENCH_E2E_TASKS', pick(200, 50)),
      seconds: 1,
      createConcurrency: 32,
      pollMs: ADVISED_POLL_MS,
      openLoop: true,
      timeoutMs: 180_000,
      rounds: envInt('BENCH_E2E_ROUNDS', 1), // A/B/B/A rounds: the row is their mean
    },
    kill: {
      tasks: pick(20, 10),
      seconds: 5,
      killAfterMs: 2000,
      restartAfterMs: 1000,
      waitMs: 1000 * envInt('BENCH_KILL_WAIT_SECONDS', 60),
      pollMs: 250,
      companions: 4, // tasks of 1 s that keep the worker busy until 1 s before its death
      idleMs: 12_000, // longer than matching's 10 s sticky poller window
    },
    // events and workflow tasks per task, counted from each workflow's history (exact, not timed)
    history: { tasks: envInt('BENCH_HISTORY_TASKS', pick(20, 5)) },
    // the peer once more with its worker restarted with this redelivery timeout (its default is 300 s)
    tunedRedeliverySeconds: 10,
    // Docket runs at most this many tasks at once per worker (its default is 10): high enough
    // that sleeping tasks never queue, as Temporal timers do not take worker slots
    peerConcurrency: envInt('BENCH_PEER_CONCURRENCY', 1000),
    // redis-py's pool allows 100 connections by default: past 100 requests in flight the peer
    // answers -32603 ("Too many connections"), so 1,000 live tasks polled at once need more
    peerRedisConnections: envInt('BENCH_PEER_REDIS_CONNECTIONS', 1000),
    afterLoadSettleMs: 1000 * envInt('BENCH_AFTER_LOAD_SECONDS', pick(30, 15)),
  };
}

export type PeerConfig = ReturnType<typeof loadPeerConfig>;
