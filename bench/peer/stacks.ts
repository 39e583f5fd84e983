/** The stacks bench:peer compares, each behind one interface (Stack). */
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
import { serverProfileDir, serveNodeArgs, workerNodeArgs } from '../config';
import { startInfra } from '../infra';
import { forEachBounded } from '../measure';
import { connectRaw, log } from '../script';
import { ADVISED_POLL_MS, type PeerConfig } from './config';
import type { ensurePeer } from './install';
import { mcpAgentTasks } from './mcp-agent-client';

const PEER_SERVER = path.join(ROOT, 'bench', 'peer', 'peer_server.py');
const MCP_AGENT_PEER = path.join(ROOT, 'bench', 'peer', 'mcp_agent_peer.py');
const MCP_AGENT_TASK_QUEUE = 'mcp-agent-bench';
type Installed = ReturnType<typeof ensurePeer>;
/** A peer run's context: its own sizes, one client shape for every stack; the FastMCP stacks have no Temporal client. */
export type PeerContext = Omit<bench.BenchContext, 'cfg'> & { cfg: PeerConfig };

/** One stack under test, whatever runs it: the scenarios see only this. */
export interface Stack {
  key: string;
  label: string;
  ctx: PeerContext;
  pids: Record<string, number>;
  address?: string;
  /** The MCP endpoint (ours: subscriptions/listen goes there). */
  url?: string;
  /** Temporal's Prometheus endpoint, where this stack runs its dev server (the stacks on it share it). */
  metricsUrl?: string;
  clearLive(): Promise<unknown>;
  endLive(): Promise<unknown>;
  settle(ids: string[]): Promise<unknown>;
  killWorker(): void;
  restartWorker(tuned?: boolean): Promise<void>;
  reexecutions(created: Created[]): Promise<number>;
  workflowTaskTimeouts?(created: Created[]): Promise<number>;
}
/** The stacks whose tasks are Temporal workflows on ours' server (their histories can be read). */
export const onTemporal = (s: Stack) => s.key === 'ours' || s.key === 'mcp-agent';

/** A task the worker-kill scenario created, and the text that marks its runs. */
export interface Created {
  taskId: string;
  text: string;
}

// ---- the stacks ------------------------------------------------------------------------------

/** Our stack: dev Temporal (SQLite WAL, synchronous of the durability class), worker, serve; plus a raw client. */
export async function startOurs(cleanup: Cleanup, cfg: PeerConfig): Promise<Stack> {
  const metricsPort = process.env.BENCH_TEMPORAL ? undefined : await freePort();
  const infra = await startInfra(cleanup, {
    pollIntervalMs: ADVISED_POLL_MS,
    metricsPort,
    sqliteSynchronous: cfg.durability.sqliteSynchronous,
    profileDir: serverProfileDir(),
    serveNodeArgs: serveNodeArgs(),
    workerNodeArgs: workerNodeArgs(),
  });
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), live: new Set<string>() };
  return {
    ...temporalBackedStack(ctx, { server: infra.pids.server, worker: infra.pids.worker, ...infra.temporalPids }, () => infra.startWorker()),
    key: 'ours',
    label: infra.dbFile
      ? `ours (Temporal SQLite WAL, synchronous=${cfg.durability.sqliteSynchronous})`
      : 'ours (Temporal cluster on PostgreSQL)',
    address: infra.address,
    url: infra.url,
    metricsUrl: metricsPort ? `http://${HOST}:${metricsPort}/metrics` : undefined,
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
export async function startMcpAgent(cleanup: Cleanup, installed: Installed, cfg: PeerConfig, ours: Stack): Promise<Stack> {
  const env = { TEMPORAL_ADDRESS: ours.address, MCP_AGENT_TASK_QUEUE, PYTHONUNBUFFERED: '1' };
  // the raw client is ours (same server): terminating, settling and reading histories
  const { server, ctx } = await launchMcpAgentServer(cleanup, installed, env, (url) => ({
    cfg,
    mcp: mcpAgentTasks(url),
    client: ours.ctx.client,
    live: new Set<string>(),
  }));
  const startWorker = async () => {
    const worker = spawnProcess(installed.mcpAgent.python, [MCP_AGENT_PEER, 'worker'], { env, keepOutput: 64 * 1024 });
    cleanup.add('mcp-agent worker', worker.pid, () => worker.stop());
    await worker.waitFor(/mcp-agent worker running/);
    return worker;
  };
  const temporal = Object.fromEntries(Object.entries(ours.pids).filter(([name]) => name.startsWith('temporal')));
  const pids = { server: server.pid, worker: (await startWorker()).pid, ...temporal };
  return {
    ...temporalBackedStack(ctx, pids, startWorker),
    key: 'mcp-agent',
    label: `mcp-agent ${installed.mcpAgent.packages['mcp-agent']} (same Temporal dev server)`,
  };
}

/** mcp-agent's MCP server, once it answers tools/list (it prints its address before it listens). */
async function launchMcpAgentServer(
  cleanup: Cleanup,
  installed: Installed,
  env: NodeJS.ProcessEnv,
  contextAt: (url: string) => PeerContext,
): Promise<{ server: ChildHandle; ctx: PeerContext }> {
  const port = await freePort();
  const server = spawnProcess(installed.mcpAgent.python, [MCP_AGENT_PEER, 'server', '--port', String(port)], {
    env,
    keepOutput: 64 * 1024,
  });
  cleanup.add('mcp-agent server', server.pid, () => server.stop());
  const ctx = contextAt(`http://${HOST}:${port}/mcp`);
  await waitAnswering(ctx, server);
  return { server, ctx };
}

/** Redis (persistence per mode) + the peer's MCP server + its separate Docket worker. */
export async function startPeer(cleanup: Cleanup, installed: Installed, cfg: PeerConfig, mode: 'nofsync' | 'fsync'): Promise<Stack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mtt-peer-${mode}-`));
  const redisPort = await freePort();
  const persistence =
    mode === 'fsync' ? ['--appendonly', 'yes', '--appendfsync', cfg.durability.appendfsync] : ['--save', '', '--appendonly', 'no'];
  const redis = spawnProcess(installed.redis.bin, ['--port', String(redisPort), '--bind', HOST, '--dir', dir, ...persistence], {
    env: installed.redis.env,
  });
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
  const ctx: PeerContext = {
    cfg,
    mcp: mcpTasks(`http://${HOST}:${port}/mcp`),
    client: undefined as unknown as Client,
    live: new Set<string>(),
  };
  await waitAnswering(ctx, server);
  return {
    key: `peer-${mode}`,
    label:
      mode === 'fsync' ? `FastMCP, Redis appendfsync ${cfg.durability.appendfsync} (like-for-like)` : 'FastMCP, Redis without persistence',
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

// a peer (Python) starts in seconds on an idle machine, in over a minute on a saturated one
async function waitAnswering(ctx: PeerContext, proc: ChildHandle, timeoutMs = 180_000): Promise<unknown> {
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
