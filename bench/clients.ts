/**
 * The two clients every measurement compares, on one bench context ctx = { cfg, mcp, client, live }:
 * our server over MCP (ctx.mcp, the support library's mcpTasks) and raw @temporalio/client calls
 * (ctx.client); plus the fixtures they share and the cleanup of every task left running.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { McpTasks } from '../test/support/mcp-client';
import { fromDist } from '../test/support/paths';
import { sleep } from '../test/support/wait';
import type { BenchConfig } from './config';
import type { Sampler } from './infra';
import { forEachBounded, measure } from './measure';
import { log, now } from './script';

const { inputResponsesSignal, TASK_MEMO_KEY, taskProgressQuery } = fromDist<typeof import('../dist/contract')>('contract');

export const TASK_QUEUE = 'mcp-tasks';

/** The task operations a measurement calls: our server's (McpTasks) or a peer's with the same shape. */
export type TaskClient = Pick<McpTasks, 'listTools' | 'createTask' | 'createWaitAndEcho' | 'getTask' | 'updateTask' | 'cancelTask' | 'rpc'>;

/** What our server sends with a start, learned from one of its tasks (learnServerStart). */
export interface ServerStart {
  seconds: number;
  memo: Record<string, any>;
  typedSearchAttributes: TypedSearchAttributes;
  staticSummary: string | undefined;
}

/** One bench's clients, configuration and the workflows it left running. */
export interface BenchContext {
  cfg: BenchConfig;
  mcp: TaskClient;
  client: Client;
  live: Set<string>;
  sampler?: Sampler;
  pids?: Record<string, number>;
  serverStart?: ServerStart;
}

/** What a single call needs: the clients, and where to remember the workflows it starts. */
export type CallContext = Pick<BenchContext, 'mcp' | 'client'> & { live: Pick<Set<string>, 'add' | 'delete'> };

/** What fixtures and the cleanup need: the clients, the workflows left running, and how many calls at once. */
export type FixtureContext = Pick<BenchContext, 'mcp' | 'client' | 'live'> & { cfg: Pick<BenchConfig, 'setupConcurrency'> };

/** Our server: tools/call → CreateTaskResult; every created taskId is remembered for cleanup. */
export async function createOurs(ctx: CallContext, seconds: number): Promise<any> {
  const created = await ctx.mcp.createWaitAndEcho(seconds);
  ctx.live.add(created.taskId);
  return created;
}

function randomWorkflowId(): string {
  return `bench-raw-${crypto.randomUUID()}`;
}

/**
 * Raw start, as plain as it gets. workflowType `plainTimer` (bench/tools: the demo's waitAndEcho without the
 * task runtime) is the raw baseline wherever the workflow runs to its end.
 */
export async function startRaw(ctx: CallContext, seconds: number, workflowType = 'waitAndEcho'): Promise<string> {
  const workflowId = randomWorkflowId();
  await ctx.client.workflow.start(workflowType, { taskQueue: TASK_QUEUE, workflowId, args: [{ text: 'x', seconds }] });
  ctx.live.add(workflowId);
  return workflowId;
}

/**
 * What our server sends with a start, read back from one task it created (describe()): its memo,
 * search attributes and static summary. startRawLikeServer then starts with exactly these, so
 * "raw with the same options" follows the server when it changes what it sends.
 */
export async function learnServerStart(ctx: CallContext & Pick<BenchContext, 'serverStart'>, seconds: number): Promise<ServerStart> {
  const { taskId } = await createOurs(ctx, seconds);
  const d = await rawDescribe(ctx, taskId);
  ctx.serverStart = { seconds, memo: d.memo ?? {}, typedSearchAttributes: d.typedSearchAttributes, staticSummary: await d.staticSummary() };
  return ctx.serverStart;
}

/**
 * Raw start with the options our server sends (its memo with a fresh createdAt, the summary, the
 * search attributes, id reuse/conflict policies): learned from a real task once per ctx.
 */
export async function startRawLikeServer(ctx: CallContext & Pick<BenchContext, 'serverStart'>, seconds: number): Promise<string> {
  const learned = ctx.serverStart?.seconds === seconds ? ctx.serverStart : await learnServerStart(ctx, seconds);
  const workflowId = randomWorkflowId();
  const memo = { ...learned.memo, [TASK_MEMO_KEY]: { ...learned.memo[TASK_MEMO_KEY], createdAt: new Date().toISOString() } };
  await ctx.client.workflow.start('waitAndEcho', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [{ text: 'x', seconds }],
    memo,
    staticSummary: learned.staticSummary,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: learned.typedSearchAttributes,
  });
  ctx.live.add(workflowId);
  return workflowId;
}

export const handle = (ctx: Pick<BenchContext, 'client'>, id: string) => ctx.client.workflow.getHandle(id);
export const rawDescribe = (ctx: Pick<BenchContext, 'client'>, id: string) => handle(ctx, id).describe();
export const rawQuery = (ctx: Pick<BenchContext, 'client'>, id: string) => handle(ctx, id).query(taskProgressQuery);
export const rawSignal = (ctx: Pick<BenchContext, 'client'>, id: string) => handle(ctx, id).signal(inputResponsesSignal, {});

/** What tasks/get does in Temporal for a completed task: describe(), then the result. */
export async function rawDescribeAndResult(ctx: CallContext, id: string): Promise<unknown> {
  await handle(ctx, id).describe();
  return handle(ctx, id).result();
}

export async function getExpecting(ctx: BenchContext, taskId: string, status: string): Promise<any> {
  const task = await ctx.mcp.getTask(taskId);
  if (task.status !== status) throw new Error(`task ${taskId} is ${task.status}, expected ${status}`);
  return task;
}

// ---- fixtures and cleanup -------------------------------------------------------------------

export async function createFixtureTasks(ctx: FixtureContext, count: number, seconds: number) {
  const { stat, results } = await measure(count, ctx.cfg.setupConcurrency, () => createOurs(ctx, seconds), 600_000);
  if (stat.errors) throw new Error(`creating ${count} fixture tasks: ${stat.errors} errors (${stat.firstError})`);
  return { ids: results.map((r) => r.taskId as string), pollIntervalMs: results[0].pollIntervalMs as number, createStat: stat };
}

/** Waits (bounded) until no workflow task is pending, so tasks/get answers from describe() alone. */
export async function waitSettled(ctx: FixtureContext, ids: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await forEachBounded(ids, ctx.cfg.setupConcurrency, async (id) => {
    while (Date.now() < deadline) {
      const d = await rawDescribe(ctx, id);
      if (!d.raw.pendingWorkflowTask) return;
      await sleep(100);
    }
  });
}

export async function waitCompleted(ctx: FixtureContext, ids: string[], timeoutMs = 60_000): Promise<void> {
  const errors = await forEachBounded(ids, ctx.cfg.setupConcurrency, (id) =>
    ctx.client.withDeadline(Date.now() + timeoutMs, () => handle(ctx, id).result()),
  );
  if (errors) throw new Error(`${errors} of ${ids.length} tasks did not complete`);
  ids.forEach((id) => ctx.live.delete(id));
}

/** Terminates every task/workflow still remembered as live (closed ones answer NotFound: fine). */
export async function terminateLive(ctx: FixtureContext): Promise<void> {
  const ids = [...ctx.live];
  ctx.live.clear();
  if (!ids.length) return;
  const t = now();
  await forEachBounded(ids, ctx.cfg.setupConcurrency, (id) => handle(ctx, id).terminate('bench cleanup'));
  log(`terminated ${ids.length} workflows in ${((now() - t) / 1000).toFixed(1)} s`);
}
/** Before timing: warmUpCalls of each kind (listing, create, raw start, tasks/get, raw describe, and raw query if asked), then the tasks are ended. */
export async function warmUp(ctx: BenchContext, { query = false } = {}): Promise<void> {
  const n = ctx.cfg.warmupCalls;
  log(`warm-up: ${n} calls of each kind`);
  await measure(n, 1, () => ctx.mcp.listTools());
  const { results } = await measure(n, 1, () => createOurs(ctx, 600));
  await measure(n, 1, () => startRaw(ctx, 600));
  const ids = results.filter(Boolean).map((r) => r.taskId);
  await measure(ids.length, 1, (i) => ctx.mcp.getTask(ids[i]));
  await measure(ids.length, 1, (i) => rawDescribe(ctx, ids[i]));
  if (query) await measure(ids.length, 1, (i) => rawQuery(ctx, ids[i]));
  await terminateLive(ctx);
}
