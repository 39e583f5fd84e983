/**
 * `npm run bench:peer`: this project's stack and its peers side by side in one run, A/B
 * interleaved: lastmile-ai's mcp-agent 0.2.6 (tools run as Temporal workflows, on the same
 * Temporal dev server as ours, driven through its `workflows-run` / `workflows-get_status` tools
 * by bench/peer/mcp-agent-client.ts) and FastMCP 4.1.4 + fastmcp-tasks 4.1.4 on Redis/Docket (the
 * same raw-wire client as ours, test/support/mcp-client.ts). The FastMCP peer's Redis runs twice:
 * without persistence, and with appendonly + the appendfsync of the run's durability class
 * (BENCH_DURABILITY=full: Temporal's SQLite synchronous=full against appendfsync always; =normal:
 * synchronous=normal against appendfsync everysec). See bench/README.md ("Peer comparison").
 *
 *   npm run bench:peer   (node build/bench/peer/install.js && node build/bench/peer/run.js, after a build)
 *   BENCH_QUICK=1 ...            smoke run (a few minutes)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { mcpTasks } from '../../test/support/mcp-client';
import { ROOT } from '../../test/support/paths';
import { freePort, HOST } from '../../test/support/ports';
import { type ChildHandle, type Cleanup, spawnProcess } from '../../test/support/processes';
import { sleep } from '../../test/support/wait';
import * as bench from '../clients';
import { durabilityClass, loadConfig, quickOr } from '../config';
import { machineAtStart, type MachineInfo, startInfra, startSampler } from '../infra';
import { forEachBounded, type Measured, measure, measureInterleaved, mergeRuns, type PollAcc, pollOne, type Stat } from '../measure';
import { batchE2e, rawBatchE2e } from '../measurements/end-to-end';
import { awaitClosed, type HistoryCounts, historyCounts, renderHistory } from '../measurements/history';
import { connectRaw, envInt, log, now, runBench, writeResults } from '../script';
import { atLeast, atMost, judge, markdownTable, ratio, summarize, type Target } from '../stats';
import { ensurePeer } from './install';
import { mcpAgentTasks } from './mcp-agent-client';

const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'peer-latest.json');
const PEER_SERVER = path.join(ROOT, 'bench', 'peer', 'peer_server.py');
const MCP_AGENT_PEER = path.join(ROOT, 'bench', 'peer', 'mcp_agent_peer.py');
const MCP_AGENT_TASK_QUEUE = 'mcp-agent-bench';

/** The wire bench's sizes (bench/config.ts) where the peer run measures the same, and its own. */
function loadPeerConfig() {
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
    // the shape of batchE2e's config in bench/config.ts
    e2e: { tasks: envInt('BENCH_E2E_TASKS', pick(200, 50)), seconds: 1, createConcurrency: 32, pollMs: 250, timeoutMs: 180_000 },
    kill: { tasks: pick(20, 10), seconds: 5, killAfterMs: 2000, restartAfterMs: 1000, waitMs: 1000 * envInt('BENCH_KILL_WAIT_SECONDS', 60), pollMs: 250 },
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

type PeerConfig = ReturnType<typeof loadPeerConfig>;
type Installed = ReturnType<typeof ensurePeer>;
/** A peer run's context: its own sizes, one client shape for every stack; the FastMCP stacks have no Temporal client. */
type PeerContext = Omit<bench.BenchContext, 'cfg'> & { cfg: PeerConfig };

/** One stack under test, whatever runs it: the scenarios see only this. */
interface Stack {
  key: string;
  label: string;
  ctx: PeerContext;
  pids: Record<string, number>;
  address?: string;
  clearLive(): Promise<unknown>;
  endLive(): Promise<unknown>;
  settle(ids: string[]): Promise<unknown>;
  killWorker(): void;
  restartWorker(tuned?: boolean): Promise<void>;
  reexecutions(created: Created[]): Promise<number>;
  workflowTaskTimeouts?(created: Created[]): Promise<number>;
}
/** A task the worker-kill scenario created, and the text that marks its runs. */
interface Created {
  taskId: string;
  text: string;
}

// ---- the stacks ------------------------------------------------------------------------------

/** Our stack: dev Temporal (SQLite WAL, synchronous of the durability class), worker, serve; plus a raw client. */
async function startOurs(cleanup: Cleanup, cfg: PeerConfig): Promise<Stack> {
  const infra = await startInfra(cleanup, { pollIntervalMs: 1000, sqliteSynchronous: cfg.durability.sqliteSynchronous });
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), live: new Set<string>() };
  return {
    ...temporalBackedStack(ctx, { ...infra.pids }, () => infra.startWorker()),
    key: 'ours',
    label: `ours (Temporal SQLite WAL, synchronous=${cfg.durability.sqliteSynchronous})`,
    address: infra.address,
  };
}

/** What the two stacks on Temporal share: ending, settling and reading histories through the raw client; the worker killed and started again. */
function temporalBackedStack(ctx: PeerContext, pids: Record<string, number>, startWorker: () => Promise<{ pid: number }>) {
  return {
    ctx,
    pids,
    clearLive: () => bench.terminateLive(ctx),
    endLive: () => cancelAndAwaitLive(ctx),
    settle: (ids: string[]) => bench.waitSettled(ctx, ids),
    killWorker: () => process.kill(pids.worker, 'SIGKILL'),
    restartWorker: async () => {
      pids.worker = (await startWorker()).pid;
    },
    reexecutions: (ids: Created[]) => timersStartedAgain(ctx, ids),
    workflowTaskTimeouts: (ids: Created[]) => workflowTaskTimeouts(ctx, ids),
  };
}

/**
 * Ends the live tasks as their clients would: the stack's own cancel (ours tasks/cancel,
 * mcp-agent workflows-cancel), then each run awaited closed in Temporal; one still running
 * after a minute is terminated. (A terminated run stays in its worker's cache until evicted:
 * the worker is never told, so memory after a terminate is not memory after the load.)
 */
async function cancelAndAwaitLive(ctx: PeerContext, timeoutMs = 60_000): Promise<void> {
  const ids = [...ctx.live];
  ctx.live.clear();
  await forEachBounded(ids, ctx.cfg.setupConcurrency, (id) => ctx.mcp.cancelTask(id));
  let terminated = 0;
  await forEachBounded(ids, ctx.cfg.setupConcurrency, async (id) => {
    const run = bench.handle(ctx, id);
    try {
      await ctx.client.withDeadline(Date.now() + timeoutMs, () => run.result());
    } catch (err) {
      const { code, cause } = err as { code?: number; cause?: { code?: number } };
      if ((code ?? cause?.code) !== 4) return; // it closed (cancelled, failed): only gRPC DEADLINE_EXCEEDED leaves it running
      terminated++;
      await run.terminate('bench: the cancel did not end it');
    }
  });
  log(`cancelled ${ids.length} tasks${terminated ? `, ${terminated} did not end within ${timeoutMs / 1000} s and were terminated` : ''}`);
}

/** A replay is not a re-execution; a timer started again in a history would be. */
async function timersStartedAgain(ctx: PeerContext, ids: Created[]): Promise<number> {
  let extra = 0;
  await forEachBounded(ids, 16, async ({ taskId }) => {
    const events = (await bench.handle(ctx, taskId).fetchHistory()).events ?? [];
    extra += Math.max(0, events.filter((e) => e.timerStartedEventAttributes).length - 1);
  });
  return extra;
}

/** Workflow tasks that timed out (e.g. on the killed worker's sticky queue) over these tasks' histories. */
async function workflowTaskTimeouts(ctx: PeerContext, ids: Created[]): Promise<number> {
  let n = 0;
  await forEachBounded(ids, 16, async ({ taskId }) => {
    const events = (await bench.handle(ctx, taskId).fetchHistory()).events ?? [];
    n += events.filter((e) => e.workflowTaskTimedOutEventAttributes).length;
  });
  return n;
}

/**
 * mcp-agent 0.2.6 (`execution_engine: temporal`) on OUR Temporal dev server: its MCP server and
 * its Temporal worker (bench/peer/mcp_agent_peer.py) as two processes, like our serve + worker.
 * The dev server is shared, so its RSS counts in both stacks' totals.
 */
async function startMcpAgent(cleanup: Cleanup, installed: Installed, cfg: PeerConfig, ours: Stack): Promise<Stack> {
  const env = { TEMPORAL_ADDRESS: ours.address, MCP_AGENT_TASK_QUEUE, PYTHONUNBUFFERED: '1' };
  const port = await freePort();
  const server = spawnProcess(installed.mcpAgent.python, [MCP_AGENT_PEER, 'server', '--port', String(port)], { env, keepOutput: 64 * 1024 });
  cleanup.add('mcp-agent server', server.pid, () => server.stop());
  const startWorker = async () => {
    const worker = spawnProcess(installed.mcpAgent.python, [MCP_AGENT_PEER, 'worker'], { env, keepOutput: 64 * 1024 });
    cleanup.add('mcp-agent worker', worker.pid, () => worker.stop());
    await worker.waitFor(/mcp-agent worker running/);
    return worker;
  };
  const pids = { server: server.pid, worker: (await startWorker()).pid, temporal: ours.pids.temporal };
  // the raw client is ours (same server): terminating, settling and reading histories
  const ctx: PeerContext = { cfg, mcp: mcpAgentTasks(`http://${HOST}:${port}/mcp`), client: ours.ctx.client, live: new Set<string>() };
  await waitAnswering(ctx, server);
  return {
    ...temporalBackedStack(ctx, pids, startWorker),
    key: 'mcp-agent',
    label: `mcp-agent ${installed.mcpAgent.packages['mcp-agent']} (same Temporal dev server)`,
  };
}

/** Redis (persistence per mode) + the peer's MCP server + its separate Docket worker. */
async function startPeer(cleanup: Cleanup, installed: Installed, cfg: PeerConfig, mode: 'nofsync' | 'fsync'): Promise<Stack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mtt-peer-${mode}-`));
  const redisPort = await freePort();
  const persistence = mode === 'fsync' ? ['--appendonly', 'yes', '--appendfsync', cfg.durability.appendfsync] : ['--save', '', '--appendonly', 'no'];
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
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const worker = spawnProcess(installed.python, [PEER_SERVER, 'worker'], { env: { ...env, ...extraEnv } });
    cleanup.add(`peer worker ${mode}`, worker.pid, () => worker.stop());
    await worker.waitFor(/peer worker running/);
    return worker;
  };
  const pids = { redis: redis.pid, server: server.pid, worker: (await startWorker()).pid };
  // no Temporal behind it: the scenarios that need the raw client run on ours only
  const ctx: PeerContext = { cfg, mcp: mcpTasks(`http://${HOST}:${port}/mcp`), client: undefined as unknown as Client, live: new Set<string>() };
  await waitAnswering(ctx, server);
  return {
    key: `peer-${mode}`,
    label: mode === 'fsync' ? `FastMCP, Redis appendfsync ${cfg.durability.appendfsync} (like-for-like)` : 'FastMCP, Redis without persistence',
    ctx,
    pids,
    clearLive: () => cancelLive(ctx),
    endLive: () => cancelLive(ctx),
    settle: () => sleep(1000), // the worker picks a task up within its 50 ms check interval
    killWorker: () => process.kill(pids.worker, 'SIGKILL'),
    restartWorker: async (tuned?: boolean) => {
      const extra: Record<string, string> = tuned ? { FASTMCP_DOCKET_REDELIVERY_TIMEOUT: `PT${cfg.tunedRedeliverySeconds}S` } : {};
      pids.worker = (await startWorker(extra)).pid;
    },
    // the tool appends its text to the starts file each time its body begins
    reexecutions: async (ids: Created[]) => {
      const lines = fs.existsSync(startsFile) ? fs.readFileSync(startsFile, 'utf8').split('\n') : [];
      const texts = new Set(ids.map((c) => c.text));
      const starts = lines.filter((l) => texts.has(l)).length;
      return Math.max(0, starts - new Set(lines.filter((l) => texts.has(l))).size);
    },
  };
}

async function waitAnswering(ctx: PeerContext, proc: ChildHandle, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await ctx.mcp.listTools();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`peer server not answering: ${(err as Error).message}\n${proc.output()}`);
      await sleep(200);
    }
  }
}

/** tasks/cancel for every task the peer still runs (the analogue of terminateLive). */
async function cancelLive(ctx: PeerContext): Promise<void> {
  const ids = [...ctx.live];
  ctx.live.clear();
  await forEachBounded(ids, ctx.cfg.setupConcurrency, (taskId) => ctx.mcp.rpc('tasks/cancel', { taskId }));
}

/** Runs fn(stack) for each stack, then again in reverse order: against drift. */
async function abba<T>(stacks: Stack[], fn: (s: Stack) => Promise<T>): Promise<Record<string, T[]>> {
  const out = Object.fromEntries(stacks.map((s) => [s.key, [] as T[]]));
  for (const order of [stacks, [...stacks].reverse()]) {
    for (const s of order) out[s.key].push(await fn(s));
  }
  return out;
}

// ---- scenarios -----------------------------------------------------------------------------

/** A create row: the concurrency, and per stack (and raw, rawLikeServer) its merged stat. */
type CreateRow = { concurrency: number } & Record<string, any>;

async function scenarioCreate(stacks: Stack[], ours: Stack, cfg: PeerConfig): Promise<CreateRow[]> {
  const { levels, calls, callsAtC1, seconds } = cfg.create;
  const rows: CreateRow[] = [];
  for (const c of levels) {
    const half = Math.ceil((c === 1 ? callsAtC1 : calls) / 2);
    log(`create: 2 × ${half} calls at c=${c} per stack (+ raw starts)`);
    const raw: Record<string, Array<Measured<unknown>>> = { raw: [], rawLikeServer: [] };
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
async function scenarioGet(stacks: Stack[], ours: Stack, cfg: PeerConfig): Promise<Record<string, Stat>> {
  const { tasks, seconds } = cfg.get;
  log(`get: ${tasks} running tasks per stack`);
  const ids: Record<string, string[]> = {};
  for (const s of stacks) {
    ids[s.key] = (await bench.createFixtureTasks(s.ctx, tasks, seconds)).ids;
    await s.settle(ids[s.key]);
  }
  const ops = Object.fromEntries(
    stacks.map((s) => [
      s.key,
      async (i: number) => {
        const task = await s.ctx.mcp.getTask(ids[s.key][i]);
        if (task.status !== 'working') throw new Error(`${s.key}: task is ${task.status}`);
      },
    ]),
  );
  ops.rawDescribe = async (i: number) => {
    await bench.rawDescribe(ours.ctx, ids.ours[i]);
  };
  const result = await measureInterleaved(tasks, ops);
  for (const s of stacks) await s.clearLive();
  return result;
}

/** N live tasks, each polled with tasks/get every interval for S s; RSS and CPU of the stack. */
async function pollLoad(s: Stack, cfg: PeerConfig) {
  const { liveTasks, seconds, intervalMs } = cfg.poll;
  log(`poll: ${s.key}: creating ${liveTasks} live tasks`);
  const sampler = startSampler(s.pids);
  const rssIdleMb = sampler.windowTotalPeak();
  const rssIdleByProcessMb = sampler.current();
  const { ids } = await bench.createFixtureTasks(s.ctx, liveTasks, 600);
  await s.settle(ids);
  log(`poll: ${s.key}: ${liveTasks} tasks polled every ${intervalMs} ms for ${seconds} s`);
  sampler.resetWindow();
  const cpu0 = sampler.cpuSnapshot();
  const acc: PollAcc = { latencies: [], lag: [], errors: 0, unexpected: 0, firstError: undefined };
  const start = now() + 100;
  const endAt = start + seconds * 1000;
  const op = async (id: string) => (await s.ctx.mcp.getTask(id)).status === 'working';
  await Promise.all(ids.map((id, i) => pollOne(op, id, start + (i / ids.length) * intervalMs, endAt, intervalMs, acc)));
  const elapsedS = Math.max(seconds, (now() - start) / 1000);
  const cpu1 = sampler.cpuSnapshot();
  const rssPeakMb = sampler.windowTotalPeak();
  const rssPeakByProcessMb = sampler.windowPeak();
  const cpuPercent = Object.fromEntries(Object.keys(cpu1).map((k) => [k, (100 * (cpu1[k] - cpu0[k])) / elapsedS]));
  await s.endLive(); // as clients end tasks, not by a terminate the worker never hears of
  await sleep(cfg.afterLoadSettleMs); // does the memory come back once the load is gone?
  const rssAfterByProcessMb = sampler.current();
  const rssAfterMb = Object.values(rssAfterByProcessMb).reduce((a, b) => a + b, 0);
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
    rssIdleByProcessMb,
    rssAfterByProcessMb,
    cpuPercent,
  };
}

async function e2e(s: Stack, cfg: PeerConfig, ours: Stack) {
  log(`e2e: ${s.key}: ${cfg.e2e.tasks} tasks of ${cfg.e2e.seconds} s, polled every ${cfg.e2e.pollMs} ms`);
  const { ids, ...batch } = await batchE2e(s.ctx);
  const r: typeof batch & { raw?: Awaited<ReturnType<typeof rawBatchE2e>> } = batch;
  await s.clearLive();
  if (s === ours) {
    // raw Temporal in ours' turn: the same batch with raw starts of plainTimer (the same timer, no
    // task runtime) on the same worker, awaited with result() long polls: no MCP, no polling
    log(`e2e: raw: ${cfg.e2e.tasks} raw plainTimer starts + result()`);
    r.raw = await rawBatchE2e(s.ctx, 'plainTimer');
    await s.clearLive();
  }
  return r;
}

// ---- events and workflow tasks per task ------------------------------------------------------

async function untilStatus(s: Stack, taskId: string, status: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await s.ctx.mcp.getTask(taskId)).status !== status) {
    if (Date.now() > deadline) throw new Error(`${s.key}: task ${taskId} never ${status}`);
    await sleep(100);
  }
}

/**
 * The same work done by each Temporal-backed stack, counted from the histories fetched after it
 * ran: a 1 s timer (ours: wait_and_echo; mcp-agent: WaitAndEcho; raw: the demo's plainTimer,
 * waitAndEcho without the task runtime, on our worker), and one input round answered (ours:
 * approve_expense answered over tasks/update; mcp-agent: WaitAndAsk answered with workflows-resume).
 */
async function scenarioHistory(stacks: Stack[], ours: Stack, cfg: PeerConfig) {
  const n = cfg.history.tasks;
  const client = ours.ctx.client;
  const out: Record<'timer' | 'input', Record<string, HistoryCounts>> = { timer: {}, input: {} };
  for (const s of stacks.filter((x) => x.key === 'ours' || x.key === 'mcp-agent')) {
    log(`history: ${s.key}: ${n} timer tasks, ${n} input rounds`);
    const { ids } = await bench.createFixtureTasks(s.ctx, n, 1);
    await awaitClosed(client, ids);
    ids.forEach((id) => s.ctx.live.delete(id));
    out.timer[s.key] = await historyCounts(client, ids);
    const asked: string[] = [];
    for (let i = 0; i < n; i++) {
      const { taskId } = s.key === 'ours'
        ? await s.ctx.mcp.createTask('approve_expense', { amount: 12, description: `bench ${i}` })
        : await s.ctx.mcp.createTask('WaitAndAsk', { text: `bench ${i}` });
      s.ctx.live.add(taskId);
      asked.push(taskId);
    }
    for (const taskId of asked) {
      if (s.key === 'ours') {
        await untilStatus(s, taskId, 'input_required');
        await s.ctx.mcp.updateTask(taskId, { approval: { action: 'accept', content: { approved: true } } });
      } else {
        await bench.waitSettled(s.ctx, [taskId]); // waiting for the signal
        await s.ctx.mcp.updateTask(taskId, { approved: true });
      }
    }
    await awaitClosed(client, asked);
    asked.forEach((id) => s.ctx.live.delete(id));
    out.input[s.key] = await historyCounts(client, asked);
  }
  log(`history: raw: ${n} plainTimer workflows`);
  const raw: string[] = [];
  for (let i = 0; i < n; i++) raw.push(await bench.startRaw(ours.ctx, 1, 'plainTimer'));
  await awaitClosed(client, raw);
  raw.forEach((id) => ours.ctx.live.delete(id));
  out.timer.raw = await historyCounts(client, raw);
  return out;
}

const HISTORY_WORKS = { timer: 'a 1 s durable timer', input: 'one input round answered' };
const HISTORY_STACKS = { ours: 'ours', 'mcp-agent': 'mcp-agent', raw: 'raw workflow' };

/** Tasks of a few seconds; SIGKILL the worker mid-way, start a new one, count what completes. */
async function workerKill(s: Stack, cfg: PeerConfig, tuned = false) {
  const { tasks, seconds, killAfterMs, restartAfterMs, waitMs, pollMs } = cfg.kill;
  log(`kill: ${s.key}: ${tasks} tasks of ${seconds} s, worker SIGKILL after ${killAfterMs} ms`);
  const stamp = Date.now().toString(36);
  const created: Created[] = [];
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
  const status = new Map<string, { status: string; final: boolean; at: number }>();
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
  const lastCompletionS = completed.length ? (Math.max(...completed.map((c) => status.get(c.taskId)!.at)) - t0) / 1000 : NaN;
  const reexecutions = await s.reexecutions(created);
  const workflowTaskTimeouts = s.workflowTaskTimeouts ? await s.workflowTaskTimeouts(created) : undefined;
  completed.forEach((c) => s.ctx.live.delete(c.taskId));
  await s.clearLive();
  return { tasks, seconds, completed: completed.length, waitS: waitMs / 1000, lastCompletionS, reexecutions, workflowTaskTimeouts };
}

const SECTIONS = ['history', 'create', 'get', 'poll', 'e2e', 'kill'];

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

const STACKS = ['ours', 'mcp-agent', 'peer-nofsync', 'peer-fsync'];
/** A stack left out (BENCH_STACKS) reads as NaN. */
const safe = (fn: () => number | undefined): number => {
  try {
    return fn() ?? NaN;
  } catch {
    return NaN;
  }
};
const mean2 = <T>(runs: T[], pick: (r: T) => number): number => runs.reduce((a, r) => a + pick(r), 0) / runs.length;

/** A target about the values themselves (ours alone), not about a ratio. */
type Values = Record<string, number>;
/** A row's target: on the ratio (atMost, atLeast), or about the values themselves (aboutOurs). */
type RowTarget = Target | { label: string; met(v: Values): boolean; aboutValues: true };
const aboutOurs = (label: string, met: (v: Values) => boolean): RowTarget => ({ label, met, aboutValues: true });
type AddRow = (name: string, pick: (k: string) => number | undefined, targets?: { agent?: RowTarget; fastmcp?: RowTarget }) => void;
/** The results file's shape (peerRows also reads hand-made ones, test/unit/bench-peer-table.test.ts). */
type PeerResults = Record<string, any>;

/**
 * One row per measurement: ours, mcp-agent, both FastMCP stacks; ours / mcp-agent with the issue's
 * target against it, and ours / FastMCP with its target on the like-for-like (appendfsync) column.
 * Row: [name, ours, mcp-agent, FastMCP no-persist, FastMCP appendfsync, ours/mcp-agent, target, met,
 * ours/FastMCP no-persist, ours/FastMCP appendfsync, target, met]; met is 'met' / 'not met' ('–'
 * when that stack did not run). A target is atMost/atLeast on the ratio, or aboutOurs(...).
 */
export function peerRows(r: PeerResults): unknown[][] {
  const rows: unknown[][] = [];
  const verdict = (target: RowTarget | undefined, ratioValue: number, v: Values) =>
    target && 'aboutValues' in target ? [target.label, target.met(v) ? 'met' : 'not met'] : judge(target, ratioValue);
  const add: AddRow = (name, pick, { agent, fastmcp } = {}) => {
    const v = Object.fromEntries(STACKS.map((k) => [k, safe(() => pick(k))]));
    const ra = ratio(v.ours, v['mcp-agent']);
    const rf = ratio(v.ours, v['peer-fsync']);
    rows.push([name, v.ours, v['mcp-agent'], v['peer-nofsync'], v['peer-fsync'], ra, ...verdict(agent, ra, v), ratio(v.ours, v['peer-nofsync']), rf, ...verdict(fastmcp, rf, v)]);
  };
  for (const row of r.create ?? []) {
    const c1 = row.concurrency === 1;
    add(`create p50, c=${row.concurrency} (ms)`, (k) => row[k].p50, c1 ? { agent: atMost(1.0), fastmcp: atMost(1.0) } : undefined);
    add(`create p99, c=${row.concurrency} (ms)`, (k) => row[k].p99);
  }
  const c32 = r.create?.find((x: CreateRow) => x.concurrency === 32);
  if (c32) add('create throughput, c=32 (/s)', (k) => c32[k].perSecond, { agent: atLeast(1.0), fastmcp: atLeast(1.0) });
  if (r.get) {
    add('status read p50, running task, c=1 (ms)', (k) => r.get[k].p50, { agent: atMost(1.0) });
    add('status read p99 (ms)', (k) => r.get[k].p99);
  }
  const p = r.poll;
  if (p) pollRows(p, add);
  const e = r.e2e;
  if (e) {
    const some = (Object.values(e)[0] as any[])[0];
    add(`end to end: ${some.tasks} × 1 s tasks at c=32, polled every 250 ms: total (ms)`, (k) => mean2(e[k], (x: any) => x.totalMs), { agent: atMost(1.0), fastmcp: atMost(1.0) });
    add('— median completion seen − created − 1 s (ms)', (k) => mean2(e[k], (x: any) => x.medianObservedMinusTaskMs));
    add('— status reads answered per task (the next read waits for the answer)', (k) => mean2(e[k], (x: any) => x.readsPerTask));
    add('— completed', (k) => Math.min(...e[k].map((x: any) => x.completed)));
  }
  if (r.kill) killRows(r, add);
  if (r.history) {
    add('history events per task: 1 s timer', (k) => r.history.timer[k].events);
    add('workflow tasks per task: 1 s timer', (k) => r.history.timer[k].workflowTasks);
    add('history events per task: one input round', (k) => r.history.input[k].events);
    add('workflow tasks per task: one input round', (k) => r.history.input[k].workflowTasks);
  }
  return rows;
}

function pollRows(p: Record<string, any[]>, add: AddRow): void {
  const { liveTasks, seconds } = Object.values(p)[0][0];
  add(`status reads/s answered: ${liveTasks} live tasks polled every 1 s for ${seconds} s (target ${liveTasks}/s)`, (k) => mean2(p[k], (x) => x.achievedPerSecond), { fastmcp: atLeast(1.5) });
  add('— poll latency p99 (ms)', (k) => Math.max(...p[k].map((x) => x.latency.p99)));
  add('— errors', (k) => p[k].reduce((a, x) => a + x.errors, 0));
  add('total RSS, idle stack (MB)', (k) => Math.min(...p[k].map((x) => x.rssIdleMb)));
  add(`total RSS, peak with ${liveTasks} live tasks polled (MB)`, (k) => Math.max(...p[k].map((x) => x.rssPeakMb)), { agent: atMost(1.0), fastmcp: atMost(2.0) });
  add('total RSS, after the load ended (MB)', (k) => p[k][p[k].length - 1].rssAfterMb, { agent: atMost(1.0) });
}

function killRows(r: PeerResults, add: AddRow): void {
  const { kill, killTuned } = r;
  const all = aboutOurs('ours: all', (v) => v.ours === kill.ours.tasks);
  const none = aboutOurs('ours: 0', (v) => v.ours === 0);
  add(`worker SIGKILL: ${kill.ours.tasks} tasks of ${kill.ours.seconds} s, completed within ${kill.ours.waitS} s`, (k) => kill[k].completed, { agent: all, fastmcp: all });
  add('— re-executions', (k) => kill[k].reexecutions, { agent: none, fastmcp: none });
  add('— last completion after creation (s)', (k) => kill[k].lastCompletionS);
  add("— workflow tasks timed out (the killed worker's sticky queue)", (k) => kill[k].workflowTaskTimeouts);
  // only FastMCP's worker has a redelivery timeout to tune: the Temporal stacks show the figures above
  const tuned = (k: string) => (k === 'ours' || k === 'mcp-agent' ? kill : killTuned)[k];
  add(`— FastMCP's worker restarted with redelivery_timeout ${r.tunedRedeliverySeconds} s: completed`, (k) => tuned(k).completed);
  add('— — re-executions', (k) => tuned(k).reexecutions);
  add('— — last completion after creation (s)', (k) => tuned(k).lastCompletionS);
}

/** Ours against raw Temporal on the same server in the same run: [name, ours, raw, ratio, target, met]. */
function rawRows(r: PeerResults): unknown[][] {
  const rows: unknown[][] = [];
  const add = (name: string, ours: number, raw: number, target?: Target) => {
    const q = ratio(ours, raw);
    rows.push([name, ours, raw, q, ...judge(target, q)]);
  };
  for (const row of r.create ?? []) {
    add(`create p50, c=${row.concurrency}, vs raw start with the same memo and search attributes (ms)`, row.ours.p50, row.rawLikeServer.p50, atMost(1.1));
    add(`create p50, c=${row.concurrency}, vs plain raw start (ms)`, row.ours.p50, row.raw.p50);
  }
  if (r.get) {
    add('tasks/get p50 vs raw describe() (ms)', r.get.ours.p50, r.get.rawDescribe.p50, atMost(1.2));
    add('tasks/get p99 vs raw describe() (ms)', r.get.ours.p99, r.get.rawDescribe.p99);
  }
  const raw = r.e2e?.ours?.map((x: any) => x.raw).filter(Boolean);
  if (raw?.length) {
    add(`end to end, ${raw[0].tasks} × 1 s: total vs raw plainTimer starts + result() (ms)`, mean2(r.e2e.ours, (x: any) => x.totalMs), mean2(raw, (x: any) => x.totalMs), atMost(1.1));
  }
  return rows;
}

function render(r: PeerResults, machine: MachineInfo & { backgroundCpuPercentAtStart: number }): string {
  const agent = r.peer.mcpAgent;
  const d = r.durability;
  const perProcess = r.poll
    ? Object.entries(r.poll)
        .map(([k, runs]: [string, any]) => {
          const last = runs[runs.length - 1];
          const mb = (field: string, n: string) => (last[field]?.[n] === undefined ? '–' : last[field][n].toFixed(0));
          return `${k}: ${Object.keys(last.rssPeakByProcessMb).map((n) => `${n} ${mb('rssIdleByProcessMb', n)} / ${mb('rssPeakByProcessMb', n)} / ${mb('rssAfterByProcessMb', n)}`).join(', ')}`;
        })
        .join('; ')
    : undefined;
  return [
    `## Peer comparison: ours vs mcp-agent ${agent['mcp-agent']} (mcp ${agent.mcp}, temporalio ${agent.temporalio}; same Temporal dev server) and FastMCP ${r.peer.packages.fastmcp} + fastmcp-tasks ${r.peer.packages['fastmcp-tasks']} (Docket, ${r.peer.redis})`,
    '',
    `Durability class: ${d.name} — Temporal's SQLite (WAL) synchronous=${d.sqliteSynchronous} against Redis appendfsync ${d.appendfsync}: ${d.means}.`,
    '',
    markdownTable(
      ['measurement', `ours (synchronous=${d.sqliteSynchronous})`, 'mcp-agent', 'FastMCP, no persistence', `FastMCP, appendfsync ${d.appendfsync}`, 'ours / mcp-agent', 'target', 'met', 'ours / FastMCP no-persist', `ours / FastMCP ${d.appendfsync} (like-for-like)`, 'target (like-for-like)', 'met'],
      peerRows(r),
    ),
    '',
    ...(perProcess ? [`RSS per process (MB), idle / peak while polling / after the load: ${perProcess}. Ours and mcp-agent share one Temporal dev server: its RSS counts in both totals.`, ''] : []),
    'mcp-agent runs on the same Temporal dev server as ours, so its durability is ours by construction; it is',
    'driven as its clients do: `workflows-run` to create, `workflows-get_status` (a Temporal describe()) to read.',
    `Like-for-like with FastMCP is the appendfsync ${d.appendfsync} column; without persistence FastMCP loses every task on a Redis restart.`,
    `BENCH_DURABILITY=${d.name === 'full' ? 'normal' : 'full'} runs the other class. A ratio below 1 is better for latencies, time, memory and events; above 1 for /s.`,
    '',
    ...(r.history
      ? ['## Temporal history per task (exact counts from the histories, fetched after the work ran)', '', renderHistory(r.history, { works: HISTORY_WORKS, stacks: HISTORY_STACKS }), '']
      : []),
    '## Ours vs raw Temporal on the same server, same run',
    '',
    markdownTable(['measurement', 'ours', 'raw', 'ours / raw', 'target', 'met'], rawRows(r)),
    '',
    `Machine: ${machine.nproc} × ${machine.cpuModel}, ${machine.memTotalMb} MB, Node ${machine.node}, Temporal CLI ${machine.temporalCli ?? '?'}; every stack, Temporal, Redis and the client share the cores.`,
    `Background CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core; during the run, CPU not used by this run's processes (others + irq): ${r.othersCpuPercent.toFixed(0)}% of one core.`,
  ].join('\n');
}

// ---- main -----------------------------------------------------------------------------------

async function main(cleanup: Cleanup): Promise<void> {
  const cfg = loadPeerConfig();
  const startedAt = new Date().toISOString();
  const machine = await machineAtStart(log, `${cfg.quick ? 'QUICK' : 'full'} peer run, durability ${cfg.durability.name}`);
  const installed = ensurePeer();
  // BENCH_STACKS=ours,mcp-agent (a comma list) for tuning runs; ours is always there
  const wanted = (process.env.BENCH_STACKS || STACKS.join(',')).split(',').map((x) => x.trim());
  const unknown = wanted.filter((w) => !STACKS.includes(w));
  if (unknown.length) throw new Error(`unknown BENCH_STACKS ${unknown.join(', ')}; known: ${STACKS.join(', ')}`);
  const ours = await startOurs(cleanup, cfg);
  const stacks = [ours];
  if (wanted.includes('mcp-agent')) stacks.push(await startMcpAgent(cleanup, installed, cfg, ours));
  for (const mode of ['nofsync', 'fsync'] as const) if (wanted.includes(`peer-${mode}`)) stacks.push(await startPeer(cleanup, installed, cfg, mode));
  log(`stacks up: ${stacks.map((s) => `${s.key} ${JSON.stringify(s.pids)}`).join(', ')}`);
  // the shared Temporal dev server is sampled once
  const all = startSampler(Object.fromEntries(stacks.flatMap((s) => Object.entries(s.pids).map(([n, pid]) => [n === 'temporal' ? 'temporal' : `${s.key}.${n}`, pid]))));
  const cpu0 = all.cpuSnapshot();
  const t0 = now();
  log('warm-up');
  for (const s of stacks) {
    await measure(cfg.warmupCalls, 1, () => bench.createOurs(s.ctx, 600));
    await measure(cfg.warmupCalls, 1, () => s.ctx.mcp.listTools());
    await s.clearLive();
  }
  const r: PeerResults = {
    durability: cfg.durability,
    peer: { packages: installed.packages, redis: installed.redis.version.split(' ').slice(0, 3).join(' '), mcpAgent: installed.mcpAgent.packages },
  };
  const sections = selectedSections();
  if (sections.has('history')) r.history = await scenarioHistory(stacks, ours, cfg);
  if (sections.has('create')) r.create = await scenarioCreate(stacks, ours, cfg);
  if (sections.has('get')) r.get = await scenarioGet(stacks, ours, cfg);
  if (sections.has('poll')) r.poll = await abba(stacks, (s) => pollLoad(s, cfg));
  if (sections.has('e2e')) r.e2e = await abba(stacks, (s) => e2e(s, cfg, ours));
  if (sections.has('kill')) {
    // last: it replaces the workers; once per stack (a count, not a timing)
    r.kill = {};
    r.killTuned = {};
    r.tunedRedeliverySeconds = cfg.tunedRedeliverySeconds;
    for (const s of stacks) r.kill[s.key] = await workerKill(s, cfg);
    for (const s of stacks.filter((x) => x.key.startsWith('peer-'))) r.killTuned[s.key] = await workerKill(s, cfg, true);
  }
  // restarted workers have new pids: `all` still holds the old ones, so the others figure is approximate
  const cpu1 = all.cpuSnapshot();
  const wall = (now() - t0) / 1000;
  const ownCpu = Object.keys(cpu1)
    .filter((k) => k.includes('.') || k === 'bench' || k === 'temporal')
    .reduce((a, k) => a + (cpu1[k] - cpu0[k] || 0), 0);
  r.othersCpuPercent = (100 * (cpu1.machine - cpu0.machine - ownCpu)) / wall;
  all.stop();
  console.log(`\n${render(r, machine)}\n`);
  writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, config: cfg, results: r }, RESULTS_FILE);
}

if (require.main === module) runBench(main, 'bench:peer');

