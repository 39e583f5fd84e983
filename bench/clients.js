'use strict';
/**
 * The two clients every measurement compares, on one bench context ctx = { cfg, mcp, client, live }:
 * our server over MCP (ctx.mcp, the support library's mcpTasks) and raw @temporalio/client calls
 * (ctx.client); plus the fixtures they share and the cleanup of every task left running.
 */
const crypto = require('node:crypto');
const { inputResponsesSignal, TASK_MEMO_KEY, taskProgressQuery } = require('../dist/contract');
const { forEachBounded, measure } = require('./measure');
const { log, now } = require('./script');
const { sleep } = require('./support');

const TASK_QUEUE = 'mcp-tasks';


/** Our server: tools/call → CreateTaskResult; every created taskId is remembered for cleanup. */
async function createOurs(ctx, seconds) {
  const created = await ctx.mcp.createWaitAndEcho(seconds);
  ctx.live.add(created.taskId);
  return created;
}

function randomWorkflowId() {
  return `bench-raw-${crypto.randomUUID()}`;
}

/**
 * Raw start, as plain as it gets. workflowType `plainTimer` (bench/tools: the demo's waitAndEcho without the
 * task runtime) is the raw baseline wherever the workflow runs to its end.
 */
async function startRaw(ctx, seconds, workflowType = 'waitAndEcho') {
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
async function learnServerStart(ctx, seconds) {
  const { taskId } = await createOurs(ctx, seconds);
  const d = await rawDescribe(ctx, taskId);
  ctx.serverStart = { seconds, memo: d.memo ?? {}, typedSearchAttributes: d.typedSearchAttributes, staticSummary: await d.staticSummary() };
  return ctx.serverStart;
}

/**
 * Raw start with the options our server sends (its memo with a fresh createdAt, the summary, the
 * search attributes, id reuse/conflict policies): learned from a real task once per ctx.
 */
async function startRawLikeServer(ctx, seconds) {
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

const handle = (ctx, id) => ctx.client.workflow.getHandle(id);
const rawDescribe = (ctx, id) => handle(ctx, id).describe();
const rawQuery = (ctx, id) => handle(ctx, id).query(taskProgressQuery);
const rawSignal = (ctx, id) => handle(ctx, id).signal(inputResponsesSignal, {});

/** What tasks/get does in Temporal for a completed task: describe(), then the result. */
async function rawDescribeAndResult(ctx, id) {
  await handle(ctx, id).describe();
  return handle(ctx, id).result();
}

async function getExpecting(ctx, taskId, status) {
  const task = await ctx.mcp.getTask(taskId);
  if (task.status !== status) throw new Error(`task ${taskId} is ${task.status}, expected ${status}`);
  return task;
}

// ---- fixtures and cleanup -------------------------------------------------------------------

async function createFixtureTasks(ctx, count, seconds) {
  const { stat, results } = await measure(count, ctx.cfg.setupConcurrency, () => createOurs(ctx, seconds), 600_000);
  if (stat.errors) throw new Error(`creating ${count} fixture tasks: ${stat.errors} errors (${stat.firstError})`);
  return { ids: results.map((r) => r.taskId), pollIntervalMs: results[0].pollIntervalMs, createStat: stat };
}

/** Waits (bounded) until no workflow task is pending, so tasks/get answers from describe() alone. */
async function waitSettled(ctx, ids, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  await forEachBounded(ids, ctx.cfg.setupConcurrency, async (id) => {
    while (Date.now() < deadline) {
      const d = await rawDescribe(ctx, id);
      if (!d.raw.pendingWorkflowTask) return;
      await sleep(100);
    }
  });
}

async function waitCompleted(ctx, ids, timeoutMs = 60_000) {
  const errors = await forEachBounded(ids, ctx.cfg.setupConcurrency, (id) =>
    ctx.client.withDeadline(Date.now() + timeoutMs, () => handle(ctx, id).result()),
  );
  if (errors) throw new Error(`${errors} of ${ids.length} tasks did not complete`);
  ids.forEach((id) => ctx.live.delete(id));
}

/** Terminates every task/workflow still remembered as live (closed ones answer NotFound: fine). */
async function terminateLive(ctx) {
  const ids = [...ctx.live];
  ctx.live.clear();
  if (!ids.length) return;
  const t = now();
  await forEachBounded(ids, ctx.cfg.setupConcurrency, (id) => handle(ctx, id).terminate('bench cleanup'));
  log(`terminated ${ids.length} workflows in ${((now() - t) / 1000).toFixed(1)} s`);
}
/** Before timing: warmUpCalls of each kind (listing, create, raw start, tasks/get, raw describe, and raw query if asked), then the tasks are ended. */
async function warmUp(ctx, { query = false } = {}) {
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

module.exports = { TASK_QUEUE, warmUp, createOurs, startRaw, learnServerStart, startRawLikeServer, handle, rawDescribe, rawQuery, rawSignal, rawDescribeAndResult, getExpecting, createFixtureTasks, waitSettled, waitCompleted, terminateLive };
