'use strict';
/**
 * `npm run bench:peer`: this project's stack and the peer (FastMCP 4.1.4 + fastmcp-tasks 4.1.4 on
 * Redis/Docket) side by side in one run, A/B interleaved, with the same raw-wire client
 * (test/support/mcp-client.ts). The peer's Redis runs twice: without persistence, and with appendonly +
 * appendfsync always (like-for-like with Temporal's SQLite in WAL mode, synchronous=full).
 * See bench/README.md ("Peer comparison") for what each row means.
 *
 *   node bench/peer/install.js && node bench/peer/run.js
 *   BENCH_QUICK=1 ...            smoke run (a few minutes)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const bench = require('../clients');
const { startInfra, startSampler, machineAtStart } = require('../infra');
const { loadConfig, quickOr } = require('../config');
const { measure, mergeRuns, measureInterleaved, forEachBounded, pollOne } = require('../measure');
const { batchE2e } = require('../measurements/end-to-end');
const { connectRaw, envInt, log, now, runBench, writeResults } = require('../script');
const { summarize, ratio, markdownTable } = require('../stats');
const { freePort, HOST, mcpTasks, sleep, spawnProcess } = require('../support');
const { ensurePeer } = require('./install');
const RESULTS_FILE = path.join(__dirname, '..', 'results', 'peer-latest.json');
const PEER_SERVER = path.join(__dirname, 'peer_server.py');

/** The wire bench's sizes (bench/config.js) where the peer run measures the same, and its own. */
function loadPeerConfig() {
  const { pick } = quickOr();
  const wire = loadConfig();
  return {
    quick: wire.quick,
    setupConcurrency: wire.setupConcurrency,
    warmupCalls: wire.warmupCalls,
    // a smoke run makes more create and get calls than the wire bench's: two stacks share it
    create: { ...wire.create, calls: pick(200, 40) },
    get: { ...wire.get, tasks: pick(200, 30) },
    poll: { liveTasks: envInt('BENCH_LIVE_TASKS', pick(1000, 100)), seconds: envInt('BENCH_POLL_SECONDS', pick(30, 10)), intervalMs: 1000 },
    // the shape of batchE2e's config in bench/config.js
    e2e: { tasks: envInt('BENCH_E2E_TASKS', pick(200, 50)), seconds: 1, createConcurrency: 32, pollMs: 250, timeoutMs: 180_000 },
    kill: { tasks: pick(20, 10), seconds: 5, killAfterMs: 2000, restartAfterMs: 1000, waitMs: 60_000, pollMs: 250 },
    // the peer once more with its worker restarted with this redelivery timeout (its default is 300 s)
    tunedRedeliverySeconds: 10,
    // Docket runs at most this many tasks at once per worker (its default is 10): high enough
    // that sleeping tasks never queue, as Temporal timers do not take worker slots
    peerConcurrency: envInt('BENCH_PEER_CONCURRENCY', 1000),
    // redis-py's pool allows 100 connections by default: past 100 requests in flight the peer
    // answers -32603 ("Too many connections"), so 1,000 live tasks polled at once need more
    peerRedisConnections: envInt('BENCH_PEER_REDIS_CONNECTIONS', 1000),
    afterLoadSettleMs: pick(30_000, 15_000),
  };
}

// ---- the stacks ------------------------------------------------------------------------------

/** Our stack: dev Temporal (SQLite WAL, synchronous=full), worker, serve; plus a raw client. */
async function startOurs(cleanup, cfg) {
  const infra = await startInfra(cleanup, { pollIntervalMs: 1000 });
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), live: new Set() };
  const pids = { ...infra.pids };
  return {
    key: 'ours',
    label: 'ours (Temporal SQLite WAL, synchronous=full)',
    ctx,
    pids,
    clearLive: () => bench.terminateLive(ctx),
    settle: (ids) => bench.waitSettled(ctx, ids),
    killWorker: () => process.kill(pids.worker, 'SIGKILL'),
    restartWorker: async () => {
      pids.worker = (await infra.startWorker()).pid;
    },
    // a replay is not a re-execution; a timer started again would be
    reexecutions: async (ids) => {
      let extra = 0;
      await forEachBounded(ids, 16, async ({ taskId }) => {
        const { events = [] } = await bench.handle(ctx, taskId).fetchHistory();
        extra += Math.max(0, events.filter((e) => e.timerStartedEventAttributes).length - 1);
      });
      return extra;
    },
  };
}

/** Redis (persistence per mode) + the peer's MCP server + its separate Docket worker. */
async function startPeer(cleanup, installed, cfg, mode) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mtt-peer-${mode}-`));
  const redisPort = await freePort();
  const persistence = mode === 'fsync' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--save', '', '--appendonly', 'no'];
  const redis = spawnProcess(installed.redis.bin, ['--port', String(redisPort), '--bind', HOST, '--dir', dir, ...persistence], { env: installed.redis.env });
  cleanup.add(`redis ${mode}`, redis.pid, async () => {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await redis.waitFor(/Ready to accept connections/);
  const startsFile = path.join(dir, 'starts.txt');
  const env = {
    FASTMCP_DOCKET_URL: `redis://${HOST}:${redisPort}/0?max_connections=${cfg.peerRedisConnections}`,
    FASTMCP_DOCKET_CONCURRENCY: String(cfg.peerConcurrency),
    PEER_STARTS_FILE: startsFile,
    PYTHONUNBUFFERED: '1',
  };
  const port = await freePort();
  const server = spawnProcess(installed.python, [PEER_SERVER, 'server', '--port', String(port)], { env });
  cleanup.add(`peer server ${mode}`, server.pid, () => server.stop());
  const startWorker = async (extraEnv = {}) => {
    const worker = spawnProcess(installed.python, [PEER_SERVER, 'worker'], { env: { ...env, ...extraEnv } });
    cleanup.add(`peer worker ${mode}`, worker.pid, () => worker.stop());
    await worker.waitFor(/peer worker running/);
    return worker;
  };
  const pids = { redis: redis.pid, server: server.pid, worker: (await startWorker()).pid };
  const ctx = { cfg, mcp: mcpTasks(`http://${HOST}:${port}/mcp`), live: new Set() };
  await waitAnswering(ctx, server);
  return {
    key: `peer-${mode}`,
    label: mode === 'fsync' ? 'peer, Redis appendfsync always (like-for-like)' : 'peer, Redis without persistence',
    ctx,
    pids,
    clearLive: () => cancelLive(ctx),
    settle: () => sleep(1000), // the worker picks a task up within its 50 ms check interval
    killWorker: () => process.kill(pids.worker, 'SIGKILL'),
    restartWorker: async (tuned) => {
      const extra = tuned ? { FASTMCP_DOCKET_REDELIVERY_TIMEOUT: `PT${cfg.tunedRedeliverySeconds}S` } : {};
      pids.worker = (await startWorker(extra)).pid;
    },
    // the tool appends its text to the starts file each time its body begins
    reexecutions: async (ids) => {
      const lines = fs.existsSync(startsFile) ? fs.readFileSync(startsFile, 'utf8').split('\n') : [];
      const texts = new Set(ids.map((c) => c.text));
      const starts = lines.filter((l) => texts.has(l)).length;
      return Math.max(0, starts - new Set(lines.filter((l) => texts.has(l))).size);
    },
  };
}

async function waitAnswering(ctx, proc, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await ctx.mcp.listTools();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`peer server not answering: ${err.message}\n${proc.output()}`);
      await sleep(200);
    }
  }
}

/** tasks/cancel for every task the peer still runs (the analogue of terminateLive). */
async function cancelLive(ctx) {
  const ids = [...ctx.live];
  ctx.live.clear();
  await forEachBounded(ids, ctx.cfg.setupConcurrency, (taskId) => ctx.mcp.rpc('tasks/cancel', { taskId }));
}

/** Runs fn(stack) for each stack, then again in reverse order: against drift. */
async function abba(stacks, fn) {
  const out = Object.fromEntries(stacks.map((s) => [s.key, []]));
  for (const order of [stacks, [...stacks].reverse()]) {
    for (const s of order) out[s.key].push(await fn(s));
  }
  return out;
}

// ---- scenarios -----------------------------------------------------------------------------

async function scenarioCreate(stacks, ours, cfg) {
  const { levels, calls, callsAtC1, seconds } = cfg.create;
  const rows = [];
  for (const c of levels) {
    const half = Math.ceil((c === 1 ? callsAtC1 : calls) / 2);
    log(`create: 2 × ${half} calls at c=${c} per stack (+ raw starts)`);
    const raw = { raw: [], rawLikeServer: [] };
    const runs = await abba(stacks, async (s) => {
      const r = await measure(half, c, () => bench.createOurs(s.ctx, seconds));
      if (s === ours) {
        raw.raw.push(await measure(half, c, () => bench.startRaw(s.ctx, seconds)));
        raw.rawLikeServer.push(await measure(half, c, () => bench.startRawLikeServer(s.ctx, seconds)));
      }
      await s.clearLive();
      return r;
    });
    rows.push({ concurrency: c, ...Object.fromEntries(Object.entries({ ...runs, ...raw }).map(([k, v]) => [k, mergeRuns(v)])) });
  }
  return rows;
}

/** tasks/get at c=1 on running tasks, every stack (and a raw describe) interleaved per call. */
async function scenarioGet(stacks, ours, cfg) {
  const { tasks, seconds } = cfg.get;
  log(`get: ${tasks} running tasks per stack`);
  const ids = {};
  for (const s of stacks) {
    ids[s.key] = (await bench.createFixtureTasks(s.ctx, tasks, seconds)).ids;
    await s.settle(ids[s.key]);
  }
  const ops = Object.fromEntries(
    stacks.map((s) => [
      s.key,
      async (i) => {
        const task = await s.ctx.mcp.getTask(ids[s.key][i]);
        if (task.status !== 'working') throw new Error(`${s.key}: task is ${task.status}`);
      },
    ]),
  );
  ops.rawDescribe = (i) => bench.rawDescribe(ours.ctx, ids.ours[i]);
  const result = await measureInterleaved(tasks, ops);
  for (const s of stacks) await s.clearLive();
  return result;
}

/** N live tasks, each polled with tasks/get every interval for S s; RSS and CPU of the stack. */
async function pollLoad(s, cfg) {
  const { liveTasks, seconds, intervalMs } = cfg.poll;
  log(`poll: ${s.key}: creating ${liveTasks} live tasks`);
  const sampler = startSampler(s.pids);
  const rssIdleMb = sampler.windowTotalPeak();
  const { ids } = await bench.createFixtureTasks(s.ctx, liveTasks, 600);
  await s.settle(ids);
  log(`poll: ${s.key}: ${liveTasks} tasks polled every ${intervalMs} ms for ${seconds} s`);
  sampler.resetWindow();
  const cpu0 = sampler.cpuSnapshot();
  const acc = { latencies: [], lag: [], errors: 0, unexpected: 0, firstError: undefined };
  const start = now() + 100;
  const endAt = start + seconds * 1000;
  const op = async (id) => (await s.ctx.mcp.getTask(id)).status === 'working';
  await Promise.all(ids.map((id, i) => pollOne(op, id, start + (i / ids.length) * intervalMs, endAt, intervalMs, acc)));
  const elapsedS = Math.max(seconds, (now() - start) / 1000);
  const cpu1 = sampler.cpuSnapshot();
  const rssPeakMb = sampler.windowTotalPeak();
  const rssPeakByProcessMb = sampler.windowPeak();
  const cpuPercent = Object.fromEntries(Object.keys(cpu1).map((k) => [k, (100 * (cpu1[k] - cpu0[k])) / elapsedS]));
  await s.clearLive();
  await sleep(cfg.afterLoadSettleMs); // does the memory come back once the load is gone?
  const rssAfterMb = Object.values(sampler.current()).reduce((a, b) => a + b, 0);
  sampler.stop();
  return {
    liveTasks,
    seconds,
    intervalMs,
    targetPerSecond: liveTasks / (intervalMs / 1000),
    achievedPerSecond: acc.latencies.length / elapsedS,
    polls: acc.latencies.length,
    errors: acc.errors + acc.unexpected,
    firstError: acc.firstError,
    latency: summarize(acc.latencies),
    scheduleLag: summarize(acc.lag),
    rssIdleMb,
    rssPeakMb,
    rssAfterMb,
    rssPeakByProcessMb,
    cpuPercent,
  };
}

async function e2e(s, cfg) {
  log(`e2e: ${s.key}: ${cfg.e2e.tasks} tasks of ${cfg.e2e.seconds} s, polled every ${cfg.e2e.pollMs} ms`);
  const { ids, ...r } = await batchE2e(s.ctx);
  await s.clearLive();
  return r;
}

/** Tasks of a few seconds; SIGKILL the worker mid-way, start a new one, count what completes. */
async function workerKill(s, cfg, tuned = false) {
  const { tasks, seconds, killAfterMs, restartAfterMs, waitMs, pollMs } = cfg.kill;
  log(`kill: ${s.key}: ${tasks} tasks of ${seconds} s, worker SIGKILL after ${killAfterMs} ms`);
  const stamp = Date.now().toString(36);
  const created = [];
  await forEachBounded([...Array(tasks).keys()], tasks, async (i) => {
    const text = `kill-${s.key}-${stamp}-${i}`;
    const { taskId } = await s.ctx.mcp.createWaitAndEcho(seconds, text);
    s.ctx.live.add(taskId);
    created.push({ taskId, text });
  });
  const t0 = now();
  await sleep(killAfterMs);
  s.killWorker();
  const killedAt = now();
  await sleep(restartAfterMs);
  await s.restartWorker(tuned);
  const status = new Map();
  while (now() - killedAt < waitMs) {
    await forEachBounded(created, 16, async ({ taskId }) => {
      if (status.get(taskId)?.final) return;
      const t = await s.ctx.mcp.getTask(taskId);
      status.set(taskId, { status: t.status, final: t.status !== 'working', at: now() });
    });
    if (created.every((c) => status.get(c.taskId)?.final)) break;
    await sleep(pollMs);
  }
  const completed = created.filter((c) => status.get(c.taskId)?.status === 'completed');
  const lastCompletionS = completed.length ? (Math.max(...completed.map((c) => status.get(c.taskId).at)) - t0) / 1000 : NaN;
  const reexecutions = await s.reexecutions(created);
  completed.forEach((c) => s.ctx.live.delete(c.taskId));
  await s.clearLive();
  return { tasks, seconds, completed: completed.length, waitS: waitMs / 1000, lastCompletionS, reexecutions };
}

const SECTIONS = ['create', 'get', 'poll', 'e2e', 'kill'];

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

// ---- the report ------------------------------------------------------------------------------

const PEERS = ['peer-nofsync', 'peer-fsync'];
/** A stack left out (BENCH_STACKS) reads as NaN. */
const safe = (fn) => {
  try {
    return fn() ?? NaN;
  } catch {
    return NaN;
  }
};
const mean2 = (runs, pick) => runs.reduce((a, r) => a + pick(r), 0) / runs.length;

/** One row per measurement: ours, both peers, ours/peer for each; the target is on the fsync ratio. */
function peerRows(r) {
  const rows = [];
  // target: a ratio bound on the like-for-like column, or { label, met(values) } about ours alone
  const add = (name, pick, target, better) => {
    const v = Object.fromEntries(['ours', ...PEERS].map((k) => [k, safe(() => pick(k))]));
    const rf = ratio(v.ours, v['peer-fsync']);
    let label = '';
    let met = '';
    if (typeof target === 'number') {
      label = `${better === 'lower' ? '≤' : '≥'} ${target}`;
      met = (better === 'lower' ? rf <= target : rf >= target) ? 'yes' : 'no';
    } else if (target) {
      label = target.label;
      met = target.met(v) ? 'yes' : 'no';
    }
    rows.push([name, v.ours, v['peer-nofsync'], v['peer-fsync'], ratio(v.ours, v['peer-nofsync']), rf, label, met]);
  };
  for (const row of r.create ?? []) {
    add(`create p50, c=${row.concurrency} (ms)`, (k) => row[k].p50, row.concurrency === 1 ? 1.0 : undefined, 'lower');
    add(`create p99, c=${row.concurrency} (ms)`, (k) => row[k].p99);
  }
  const c32 = r.create?.find((x) => x.concurrency === 32);
  if (c32) add('create throughput, c=32 (/s)', (k) => c32[k].perSecond, 1.0, 'higher');
  if (r.get) {
    add('tasks/get p50, running task, c=1 (ms)', (k) => r.get[k].p50);
    add('tasks/get p99 (ms)', (k) => r.get[k].p99);
  }
  const p = r.poll;
  if (p) pollRows(p, add);
  const e = r.e2e;
  if (e) {
    add(`end to end: ${e.ours[0].tasks} × 1 s tasks at c=32, polled every 250 ms: total (ms)`, (k) => mean2(e[k], (x) => x.totalMs), 1.0, 'lower');
    add('— median completion seen − created − 1 s (ms)', (k) => mean2(e[k], (x) => x.medianObservedMinusTaskMs));
    add('— completed', (k) => Math.min(...e[k].map((x) => x.completed)));
  }
  if (r.kill) killRows(r, add);
  return rows;
}

function pollRows(p, add) {
  const { liveTasks, seconds } = p.ours[0];
  add(`polls/s answered: ${liveTasks} live tasks polled every 1 s for ${seconds} s (target ${liveTasks}/s)`, (k) => mean2(p[k], (x) => x.achievedPerSecond), 1.5, 'higher');
  add('— poll latency p99 (ms)', (k) => Math.max(...p[k].map((x) => x.latency.p99)));
  add('— errors', (k) => p[k].reduce((a, x) => a + x.errors, 0));
  add('total RSS, idle stack (MB)', (k) => Math.min(...p[k].map((x) => x.rssIdleMb)));
  add(`total RSS, peak with ${liveTasks} live tasks polled (MB)`, (k) => Math.max(...p[k].map((x) => x.rssPeakMb)), 2.0, 'lower');
  add('total RSS, after the load ended (MB)', (k) => p[k][p[k].length - 1].rssAfterMb);
}

function killRows(r, add) {
  const { kill, killTuned } = r;
  add(`worker SIGKILL: ${kill.ours.tasks} tasks of ${kill.ours.seconds} s, completed within ${kill.ours.waitS} s`, (k) => kill[k].completed, {
    label: 'ours: all',
    met: (v) => v.ours === kill.ours.tasks,
  });
  add('— re-executions', (k) => kill[k].reexecutions, { label: 'ours: 0', met: (v) => v.ours === 0 });
  add('— last completion after creation (s)', (k) => kill[k].lastCompletionS);
  // ours has nothing to tune here: the same figures as above
  const tuned = (k) => (k === 'ours' ? kill : killTuned)[k];
  add(`— peer's worker restarted with redelivery_timeout ${r.tunedRedeliverySeconds} s: completed`, (k) => tuned(k).completed);
  add('— — re-executions', (k) => tuned(k).reexecutions);
  add('— — last completion after creation (s)', (k) => tuned(k).lastCompletionS);
}

function rawRows(r) {
  const rows = [];
  for (const row of r.create) {
    rows.push([`create p50, c=${row.concurrency}, vs raw start with the same options (ms)`, row.ours.p50, row.rawLikeServer.p50, ratio(row.ours.p50, row.rawLikeServer.p50), '≤ 1.10']);
    rows.push([`create p50, c=${row.concurrency}, vs plain raw start (ms)`, row.ours.p50, row.raw.p50, ratio(row.ours.p50, row.raw.p50), '']);
  }
  rows.push(['tasks/get p50 vs raw describe() (ms)', r.get.ours.p50, r.get.rawDescribe.p50, ratio(r.get.ours.p50, r.get.rawDescribe.p50), '≤ 1.2']);
  rows.push(['tasks/get p99 vs raw describe() (ms)', r.get.ours.p99, r.get.rawDescribe.p99, ratio(r.get.ours.p99, r.get.rawDescribe.p99), '']);
  return rows;
}

function render(r, machine) {
  return [
    `## Peer comparison: ours vs FastMCP ${r.peer.packages.fastmcp} + fastmcp-tasks ${r.peer.packages['fastmcp-tasks']} (Docket, ${r.peer.redis})`,
    '',
    markdownTable(
      ['measurement', 'ours', 'peer, no persistence', 'peer, fsync always (like-for-like)', 'ours / peer no-persist', 'ours / peer fsync (like-for-like)', 'target (like-for-like)', 'met'],
      peerRows(r),
    ),
    '',
    ...(r.poll
      ? [
          `Peak RSS per process while polling (MB): ${Object.entries(r.poll)
            .map(
              ([k, runs]) =>
                `${k}: ${Object.entries(runs[runs.length - 1].rssPeakByProcessMb)
                  .map(([n, mb]) => `${n} ${mb.toFixed(0)}`)
                  .join(', ')}`,
            )
            .join('; ')}.`,
          '',
        ]
      : []),
    "Like-for-like is the fsync column: Temporal's SQLite runs in WAL mode with synchronous=full, so every",
    'acknowledged write is on disk, as with Redis appendfsync always. Without persistence the peer loses',
    'every task on a Redis restart. A ratio below 1 is better for latencies, time and memory; above 1 for /s.',
    '',
    '## Ours vs raw Temporal on the same server, same run',
    r.create && r.get ? markdownTable(['measurement', 'ours', 'raw', 'ratio', 'target'], rawRows(r)) : '(needs the create and get sections)',
    '',
    `Machine: ${machine.nproc} × ${machine.cpuModel}, ${machine.memTotalMb} MB, Node ${machine.node}, Temporal CLI ${machine.temporalCli ?? '?'}; all three stacks, Temporal, Redis and the client share the cores.`,
    `Background CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core; during the run, CPU not used by this run's processes (others + irq): ${r.othersCpuPercent.toFixed(0)}% of one core.`,
  ].join('\n');
}

// ---- main -----------------------------------------------------------------------------------

async function main(cleanup) {
  const cfg = loadPeerConfig();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} peer run`);
  const installed = ensurePeer();
  // BENCH_STACKS=ours (or a comma list) for tuning runs; ours is always there
  const wanted = (process.env.BENCH_STACKS || ['ours', ...PEERS].join(',')).split(',').map((x) => x.trim());
  const ours = await startOurs(cleanup, cfg);
  const stacks = [ours];
  for (const mode of ['nofsync', 'fsync']) if (wanted.includes(`peer-${mode}`)) stacks.push(await startPeer(cleanup, installed, cfg, mode));
  log(`stacks up: ${stacks.map((s) => `${s.key} ${JSON.stringify(s.pids)}`).join(', ')}`);
  const all = startSampler(Object.fromEntries(stacks.flatMap((s) => Object.entries(s.pids).map(([n, pid]) => [`${s.key}.${n}`, pid]))));
  const cpu0 = all.cpuSnapshot();
  const t0 = now();
  log('warm-up');
  for (const s of stacks) {
    await measure(cfg.warmupCalls, 1, () => bench.createOurs(s.ctx, 600));
    await measure(cfg.warmupCalls, 1, () => s.ctx.mcp.listTools());
    await s.clearLive();
  }
  const r = { peer: { packages: installed.packages, redis: installed.redis.version.split(' ').slice(0, 3).join(' ') } };
  const sections = selectedSections();
  if (sections.has('create')) r.create = await scenarioCreate(stacks, ours, cfg);
  if (sections.has('get')) r.get = await scenarioGet(stacks, ours, cfg);
  if (sections.has('poll')) r.poll = await abba(stacks, (s) => pollLoad(s, cfg));
  if (sections.has('e2e')) r.e2e = await abba(stacks, (s) => e2e(s, cfg));
  if (sections.has('kill')) {
    // last: it replaces the workers; once per stack (a count, not a timing)
    r.kill = {};
    r.killTuned = {};
    r.tunedRedeliverySeconds = cfg.tunedRedeliverySeconds;
    for (const s of stacks) r.kill[s.key] = await workerKill(s, cfg);
    for (const s of stacks.filter((x) => x !== ours)) r.killTuned[s.key] = await workerKill(s, cfg, true);
  }
  // restarted workers have new pids: `all` still holds the old ones, so the others figure is approximate
  const cpu1 = all.cpuSnapshot();
  const wall = (now() - t0) / 1000;
  const ownCpu = Object.keys(cpu1)
    .filter((k) => k.includes('.') || k === 'bench')
    .reduce((a, k) => a + (cpu1[k] - cpu0[k] || 0), 0);
  r.othersCpuPercent = (100 * (cpu1.machine - cpu0.machine - ownCpu)) / wall;
  all.stop();
  console.log(`\n${render(r, machine)}\n`);
  writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, config: cfg, results: r }, RESULTS_FILE);
}

if (require.main === module) runBench(main, 'bench:peer');

module.exports = { peerRows };
