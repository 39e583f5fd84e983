'use strict';
/**
 * Benchmark: the MCP Tasks wire of mcp-temporal-tasks beside raw @temporalio/client calls on the
 * same Temporal dev server, in the same run. See bench/README.md for what each number means.
 *
 *   npm run bench                 full run (several minutes)
 *   BENCH_QUICK=1 npm run bench   smoke run (about a minute)
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Client, Connection } = require('@temporalio/client');
const { Cleanup, startInfra, startSampler, machineInfo, machineBusyPercent, readTcpCounters, tcpDelta } = require('./infra');
const { mcpTasks } = require('./mcp');
const { inputResponsesSignal, MCP_TASK_STATUS, MCP_TOOL, TASK_MEMO_KEY, taskProgressQuery } = require('../dist/contract');
const { summarize, median, ratio, markdownTable } = require('./stats');

const TASK_QUEUE = 'mcp-tasks';
const RESULTS_FILE = path.join(__dirname, 'results', 'latest.json');
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const log = (msg) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---- configuration ----------------------------------------------------------------------

function envInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

function loadConfig() {
  const quick = process.env.BENCH_QUICK === '1';
  const pick = (full, small) => (quick ? small : full);
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

// ---- measuring ------------------------------------------------------------------------------

/**
 * Runs fn(i) for i < count with `concurrency` lanes; times each successful call.
 * Stops starting new calls after timeLimitMs. Returns stats and the results by index.
 */
async function measure(count, concurrency, fn, timeLimitMs = 120_000) {
  const latencies = [];
  const results = new Array(count);
  const failure = { errors: 0, firstError: undefined };
  let next = 0;
  const start = now();
  const stopAt = start + timeLimitMs;
  const lane = async () => {
    while (next < count && now() < stopAt) {
      const i = next++;
      const t = now();
      try {
        results[i] = await fn(i);
        latencies.push(now() - t);
      } catch (err) {
        failure.errors++;
        failure.firstError ??= err.message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  const wallMs = now() - start;
  const stat = { concurrency, ...summarize(latencies), perSecond: latencies.length / (wallMs / 1000), wallMs, ...failure };
  return { stat, results, latencies };
}

/** Several measure() runs of the same thing as one: percentiles over all calls, summed wall time. */
function mergeRuns(runs) {
  const latencies = runs.flatMap((r) => r.latencies);
  const wallMs = runs.reduce((a, r) => a + r.stat.wallMs, 0);
  const errors = runs.reduce((a, r) => a + r.stat.errors, 0);
  const firstError = runs.map((r) => r.stat.firstError).find(Boolean);
  return { concurrency: runs[0].stat.concurrency, ...summarize(latencies), perSecond: latencies.length / (wallMs / 1000), wallMs, errors, firstError };
}

/**
 * Sequential (c=1) latencies of several operations, interleaved: for call i every op runs once,
 * in an order rotated by i, so that background noise and drift hit all of them alike.
 */
async function measureInterleaved(count, ops, timeLimitMs = 120_000) {
  const names = Object.keys(ops);
  const acc = Object.fromEntries(names.map((n) => [n, { latencies: [], errors: 0, firstError: undefined }]));
  const stopAt = now() + timeLimitMs;
  for (let i = 0; i < count && now() < stopAt; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const t = now();
      try {
        await ops[name](i);
        acc[name].latencies.push(now() - t);
      } catch (err) {
        acc[name].errors++;
        acc[name].firstError ??= err.message;
      }
    }
  }
  return Object.fromEntries(names.map((n) => [n, { concurrency: 1, ...summarize(acc[n].latencies), errors: acc[n].errors, firstError: acc[n].firstError }]));
}

/** Runs fn over items with bounded concurrency, ignoring (but counting) failures. */
async function forEachBounded(items, concurrency, fn) {
  const { stat } = await measure(items.length, concurrency, (i) => fn(items[i]), 600_000);
  return stat.errors;
}

// ---- the two clients ------------------------------------------------------------------------

/** Our server: tools/call → CreateTaskResult; every created taskId is remembered for cleanup. */
async function createOurs(ctx, seconds) {
  const created = await ctx.mcp.createWaitAndEcho(seconds);
  ctx.live.add(created.taskId);
  return created;
}

function randomWorkflowId() {
  return `bench-raw-${crypto.randomUUID()}`;
}

/** Raw start, as plain as it gets. */
async function startRaw(ctx, seconds) {
  const workflowId = randomWorkflowId();
  await ctx.client.workflow.start('waitAndEcho', { taskQueue: TASK_QUEUE, workflowId, args: [{ text: 'x', seconds }] });
  ctx.live.add(workflowId);
  return workflowId;
}

/** Raw start with the options our server sends (memo, summary, search attributes, id policies). */
async function startRawLikeServer(ctx, seconds) {
  const workflowId = randomWorkflowId();
  const createdAt = new Date().toISOString();
  await ctx.client.workflow.start('waitAndEcho', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [{ text: 'x', seconds }],
    memo: { [TASK_MEMO_KEY]: { tool: 'wait_and_echo', createdAt, ttlMs: 86_400_000 } },
    staticSummary: `wait_and_echo(text="x", seconds=${seconds})`,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: [
      { key: MCP_TOOL, value: 'wait_and_echo' },
      { key: MCP_TASK_STATUS, value: 'working' },
    ],
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

// ---- 1. create ------------------------------------------------------------------------------

async function benchCreate(ctx) {
  const { levels, calls, callsAtC1, seconds } = ctx.cfg.create;
  const limit = ctx.cfg.measureTimeLimitMs;
  const rows = [];
  for (const concurrency of levels) {
    const n = concurrency === 1 ? callsAtC1 : calls;
    log(`create: ${n} calls at c=${concurrency} (of each kind)`);
    const kinds = { ours: createOurs, raw: startRaw, rawLikeServer: startRawLikeServer };
    const runs = { ours: [], raw: [], rawLikeServer: [] };
    // two halves, in order ours, raw, raw+options and then reversed, against drift
    for (const order of [Object.keys(kinds), Object.keys(kinds).reverse()]) {
      for (const kind of order) runs[kind].push(await measure(Math.ceil(n / 2), concurrency, () => kinds[kind](ctx, seconds), limit));
      await terminateLive(ctx);
    }
    rows.push({ concurrency, ours: mergeRuns(runs.ours), raw: mergeRuns(runs.raw), rawLikeServer: mergeRuns(runs.rawLikeServer) });
  }
  const toolsList = (await measure(callsAtC1, 1, () => ctx.mcp.listTools(), limit)).stat;
  return { rows, toolsList };
}

function renderCreate({ rows, toolsList }) {
  const main = markdownTable(
    ['c', 'n', 'ours p50', 'p95', 'p99', 'ours/s', 'raw p50', 'p95', 'p99', 'raw/s', 'ratio p50', 'ratio p95', 'ratio p99', 'ratio /s', 'errors ours/raw'],
    rows.map(({ concurrency, ours, raw }) => [
      concurrency, ours.n, ours.p50, ours.p95, ours.p99, ours.perSecond, raw.p50, raw.p95, raw.p99, raw.perSecond,
      ratio(ours.p50, raw.p50), ratio(ours.p95, raw.p95), ratio(ours.p99, raw.p99), ratio(ours.perSecond, raw.perSecond),
      `${ours.errors}/${raw.errors}`,
    ]),
  );
  const explain = markdownTable(
    ['c', 'raw+server options p50', 'p95', 'p99', '/s', 'ours / raw+options p50', 'ours − raw+options p50 (ms)'],
    rows.map(({ concurrency, ours, rawLikeServer: r }) => [concurrency, r.p50, r.p95, r.p99, r.perSecond, ratio(ours.p50, r.p50), ours.p50 - r.p50]),
  );
  return [
    '## 1. Create: tools/call → CreateTaskResult vs raw workflow.start (ms)',
    main,
    '',
    'Where the difference goes: raw start with the same options the server sends (memo, staticSummary, search attributes, id policies):',
    explain,
    '',
    `MCP floor (tools/list, no Temporal call, c=1, n=${toolsList.n}): p50 ${toolsList.p50.toFixed(2)} ms, p95 ${toolsList.p95.toFixed(2)} ms, p99 ${toolsList.p99.toFixed(2)} ms`,
  ].join('\n');
}

// ---- 2. get ---------------------------------------------------------------------------------

/** tasks/get beside raw describe(), raw query and the server's own Temporal calls: c=1, interleaved. */
function compareGets(ctx, ids, status, equivalent) {
  return measureInterleaved(ids.length, {
    ours: (i) => getExpecting(ctx, ids[i], status),
    describe: (i) => rawDescribe(ctx, ids[i]),
    query: (i) => rawQuery(ctx, ids[i]),
    equivalent: (i) => equivalent(ctx, ids[i]),
  }, ctx.cfg.measureTimeLimitMs);
}

async function benchGet(ctx) {
  const { tasks, seconds } = ctx.cfg.get;
  log(`get: ${tasks} running tasks`);
  const running = await createFixtureTasks(ctx, tasks, seconds);
  await waitSettled(ctx, running.ids);
  const runningRow = await compareGets(ctx, running.ids, 'working', rawDescribe);
  await terminateLive(ctx);
  log(`get: ${tasks} completed tasks`);
  const done = await createFixtureTasks(ctx, tasks, 0);
  await waitCompleted(ctx, done.ids);
  const completedRow = await compareGets(ctx, done.ids, 'completed', rawDescribeAndResult);
  return { running: runningRow, completed: completedRow };
}

function renderGet(data) {
  const rows = ['running', 'completed'].map((kind) => [kind, data[kind]]).map(([kind, r]) => [
    kind, r.ours.n, r.ours.p50, r.ours.p95, r.ours.p99,
    r.describe.p50, r.describe.p99, r.query.p50, r.query.p99,
    ratio(r.ours.p50, r.describe.p50), ratio(r.ours.p50, r.query.p50),
    r.equivalent.p50, ratio(r.ours.p50, r.equivalent.p50),
    `${r.ours.errors}/${r.describe.errors}/${r.query.errors}`,
  ]);
  return [
    '## 2. Get: tasks/get vs raw describe() and raw query (c=1, ms)',
    markdownTable(
      ['task', 'n', 'ours p50', 'p95', 'p99', 'describe p50', 'p99', 'query p50', 'p99', 'ours/describe p50', 'ours/query p50', 'server-equivalent p50', 'ours/equivalent p50', 'errors ours/desc/query'],
      rows,
    ),
    '',
    'server-equivalent = the Temporal calls tasks/get itself makes: describe() for a running task, describe() + result() for a completed one.',
  ].join('\n');
}

// ---- 3. update ------------------------------------------------------------------------------

async function benchUpdate(ctx) {
  const { tasks, seconds } = ctx.cfg.update;
  const limit = ctx.cfg.measureTimeLimitMs;
  log(`update: 2 × ${tasks} running tasks`);
  // separate task sets, so neither signal lands while the other's workflow task is in flight
  const forOurs = (await createFixtureTasks(ctx, tasks, seconds)).ids;
  const forRaw = (await createFixtureTasks(ctx, tasks, seconds)).ids;
  await waitSettled(ctx, [...forOurs, ...forRaw]);
  const answer = { x: { action: 'accept', content: {} } };
  const result = await measureInterleaved(tasks, {
    ours: async (i) => {
      const ack = await ctx.mcp.updateTask(forOurs[i], answer);
      if (ack.resultType !== 'complete') throw new Error(`unexpected ack ${JSON.stringify(ack)}`);
    },
    raw: (i) => rawSignal(ctx, forRaw[i]),
  }, limit);
  await terminateLive(ctx);
  return result;
}

function renderUpdate({ ours, raw }) {
  return [
    '## 3. Update: tasks/update ack vs raw signal (c=1, ms)',
    markdownTable(
      ['n', 'ours p50', 'p95', 'p99', 'raw p50', 'p95', 'p99', 'ratio p50', 'ratio p99', 'errors ours/raw'],
      [[ours.n, ours.p50, ours.p95, ours.p99, raw.p50, raw.p95, raw.p99, ratio(ours.p50, raw.p50), ratio(ours.p99, raw.p99), `${ours.errors}/${raw.errors}`]],
    ),
  ].join('\n');
}

// ---- 4. poll load ---------------------------------------------------------------------------

/** One client polling one task with op(taskId) every intervalMs from firstSlot until endAt. */
async function pollOne(op, taskId, firstSlot, endAt, intervalMs, acc) {
  let slot = firstSlot;
  await sleep(slot - now());
  while (now() < endAt) {
    acc.lag.push(Math.max(0, now() - slot));
    const t = now();
    try {
      const running = await op(taskId);
      acc.latencies.push(now() - t);
      if (!running) acc.unexpected++;
    } catch (err) {
      acc.errors++;
      acc.firstError ??= err.message;
    }
    slot = Math.max(slot + intervalMs, now()); // missed slots are skipped, not burst
    if (slot >= endAt) return;
    await sleep(slot - now());
  }
}

/** Every task polled by op at intervalMs (first polls staggered over one interval) for `seconds`. */
async function pollWindow(ctx, ids, intervalMs, seconds, op) {
  ctx.sampler.resetWindow();
  const rssBefore = ctx.sampler.current().server;
  const cpu0 = ctx.sampler.cpuSnapshot();
  const tcp0 = readTcpCounters();
  const acc = { latencies: [], lag: [], errors: 0, unexpected: 0, firstError: undefined };
  const start = now() + 100;
  const endAt = start + seconds * 1000;
  await Promise.all(ids.map((id, i) => pollOne(op, id, start + (i / ids.length) * intervalMs, endAt, intervalMs, acc)));
  const elapsedS = Math.max(seconds, (now() - start) / 1000); // includes calls still running at the end
  return {
    achievedPerSecond: acc.latencies.length / elapsedS,
    polls: acc.latencies.length, errors: acc.errors, notRunning: acc.unexpected, firstError: acc.firstError,
    latency: summarize(acc.latencies), scheduleLag: summarize(acc.lag),
    serverRssBeforeMb: rssBefore, serverRssPeakMb: ctx.sampler.windowPeak().server,
    cpuPercent: cpuPercentSince(ctx, cpu0, elapsedS),
    tcp: tcpDelta(tcp0),
  };
}

/** CPU of each process (and of the rest of the machine) since cpu0, as % of one core. */
function cpuPercentSince(ctx, cpu0, seconds) {
  const cpu1 = ctx.sampler.cpuSnapshot();
  const pct = Object.fromEntries(Object.keys(cpu1).map((k) => [k, (100 * (cpu1[k] - cpu0[k])) / seconds]));
  pct.others = pct.machine - pct.irq - pct.server - pct.worker - pct.temporal - pct.bench;
  return pct;
}

async function benchPollLoad(ctx) {
  const { liveTasks, seconds } = ctx.cfg.poll;
  log(`poll: creating ${liveTasks} live tasks`);
  const fixtures = await createFixtureTasks(ctx, liveTasks, 600);
  await waitSettled(ctx, fixtures.ids);
  const intervalMs = fixtures.pollIntervalMs;
  log(`poll: ${liveTasks} tasks, tasks/get every ${intervalMs} ms for ${seconds} s`);
  const ours = await pollWindow(ctx, fixtures.ids, intervalMs, seconds, async (id) => (await ctx.mcp.getTask(id)).status === 'working');
  await sleep(2000); // let the server drain
  log(`poll: the same ${liveTasks} tasks, raw describe() every ${intervalMs} ms for ${seconds} s`);
  const raw = await pollWindow(ctx, fixtures.ids, intervalMs, seconds, async (id) => (await rawDescribe(ctx, id)).status.name === 'RUNNING');
  await terminateLive(ctx);
  return { liveTasks, seconds, intervalMs, targetPerSecond: liveTasks / (intervalMs / 1000), ours, raw, create: fixtures.createStat };
}

function renderPoll(p) {
  const row = (name, r) => [
    name, p.targetPerSecond, r.achievedPerSecond, r.polls, r.errors + r.notRunning, r.latency.p50, r.latency.p95, r.latency.p99, r.latency.max,
    r.scheduleLag.p99, r.serverRssBeforeMb, r.serverRssPeakMb,
  ];
  const cpuRow = (name, r) => [
    name, r.cpuPercent.server, r.cpuPercent.worker, r.cpuPercent.temporal, r.cpuPercent.bench, r.cpuPercent.irq, r.cpuPercent.others, r.cpuPercent.machine,
    r.tcp.activeOpens, r.tcp.listenOverflows, r.tcp.synRetrans,
  ];
  return [
    `## 4. Poll load: ${p.liveTasks} live tasks, each polled every ${p.intervalMs} ms for ${p.seconds} s`,
    markdownTable(
      ['poll', 'target polls/s', 'achieved polls/s', 'polls', 'errors', 'p50', 'p95', 'p99', 'max', 'schedule lag p99', 'server RSS before (MB)', 'server RSS peak (MB)'],
      [row('tasks/get (ours)', p.ours), row('raw describe()', p.raw)],
    ),
    '',
    'CPU while polling (% of one core; machine = all cores; others = processes not started by this run and kernel threads) and TCP counters (machine-wide):',
    markdownTable(
      ['poll', 'server', 'worker', 'temporal', 'bench client', 'irq/softirq', 'others', 'machine', 'TCP connects', 'listen overflows', 'SYN retransmits'],
      [cpuRow('tasks/get (ours)', p.ours), cpuRow('raw describe()', p.raw)],
    ),
    '',
    `Ratio achieved polls/s ours/raw: ${ratio(p.ours.achievedPerSecond, p.raw.achievedPerSecond).toFixed(2)}; p50 latency ours/raw: ${ratio(p.ours.latency.p50, p.raw.latency.p50).toFixed(2)}.`,
    `Creating the ${p.liveTasks} tasks at c=${p.create.concurrency}: ${p.create.perSecond.toFixed(0)}/s, p50 ${p.create.p50.toFixed(1)} ms, p99 ${p.create.p99.toFixed(1)} ms.`,
  ].join('\n');
}

// ---- 5. end to end --------------------------------------------------------------------------

/** Polls tasks/get from notBefore every pollMs until completed; resolves with the time observed. */
async function pollUntilCompleted(ctx, taskId, notBefore, pollMs, deadline) {
  await sleep(notBefore - now());
  for (;;) {
    const task = await ctx.mcp.getTask(taskId);
    if (task.status === 'completed') return now();
    if (task.status !== 'working') throw new Error(`task ${taskId} ended ${task.status}`);
    if (now() > deadline) throw new Error(`task ${taskId} not completed by the deadline`);
    await sleep(pollMs);
  }
}

/** Temporal's own view: closeTime − startTime − task duration, from describe(). */
async function temporalSideOverheads(ctx, ids, taskMs) {
  const { results } = await measure(ids.length, ctx.cfg.setupConcurrency, (i) => rawDescribe(ctx, ids[i]), 600_000);
  return results.filter((d) => d?.closeTime).map((d) => d.closeTime.getTime() - d.startTime.getTime() - taskMs);
}

const tsMs = (ts) => Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);

/** Where one finished wait_and_echo spent its time beyond the timer, from its history (ms). */
function historyPhases(events, taskMs) {
  const at = (attr, nth = 0) => {
    const event = events.filter((e) => e[attr])[nth];
    return event ? tsMs(event.eventTime) : NaN;
  };
  const completed = at('workflowExecutionCompletedEventAttributes');
  return {
    firstTaskPickup: at('workflowTaskStartedEventAttributes', 0) - at('workflowExecutionStartedEventAttributes'),
    firstTaskRun: at('workflowTaskCompletedEventAttributes', 0) - at('workflowTaskStartedEventAttributes', 0),
    timerLate: at('timerFiredEventAttributes') - at('timerStartedEventAttributes') - taskMs,
    secondTaskPickup: at('workflowTaskStartedEventAttributes', 1) - at('timerFiredEventAttributes'),
    secondTaskRun: completed - at('workflowTaskStartedEventAttributes', 1),
    total: completed - at('workflowExecutionStartedEventAttributes') - taskMs,
  };
}

/** historyPhases of up to `sample` tasks, summarized per phase. */
async function historyBreakdown(ctx, ids, taskMs, sample = 100) {
  const picked = ids.slice(0, sample);
  const { results } = await measure(picked.length, 16, (i) => handle(ctx, picked[i]).fetchHistory(), 600_000);
  const phases = results.filter(Boolean).map((h) => historyPhases(h.events ?? [], taskMs));
  const names = Object.keys(phases[0] ?? {});
  return Object.fromEntries(names.map((n) => [n, summarize(phases.map((p) => p[n]).filter(Number.isFinite))]));
}

/** One task at a time, polled closely: what a single task costs beyond its timer without load. */
async function unloadedE2e(ctx) {
  const { unloadedTasks, unloadedPollMs, seconds } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  const observed = [];
  const ids = [];
  for (let i = 0; i < unloadedTasks; i++) {
    const sent = now();
    const { taskId } = await createOurs(ctx, seconds);
    const doneAt = await pollUntilCompleted(ctx, taskId, now() + taskMs, unloadedPollMs, now() + 60_000);
    observed.push(doneAt - sent - taskMs);
    ids.push(taskId);
    ctx.live.delete(taskId);
  }
  const temporalSide = await temporalSideOverheads(ctx, ids, taskMs);
  return { tasks: unloadedTasks, pollMs: unloadedPollMs, observedMinusTask: summarize(observed), temporalCloseMinusStartMinusTask: summarize(temporalSide) };
}

/** The batch: all tasks created at once (bounded concurrency), each polled until completed. */
async function batchE2e(ctx) {
  const { tasks, seconds, createConcurrency, pollMs, timeoutMs } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  const done = [];
  const pollers = [];
  const failures = { errors: 0, firstError: undefined };
  const start = now(); // before the first create
  const deadline = start + timeoutMs;
  let advisedMs;
  const { stat: create } = await measure(tasks, createConcurrency, async () => {
    const { taskId, pollIntervalMs } = await createOurs(ctx, seconds);
    const createdAt = now();
    advisedMs = pollIntervalMs;
    pollers.push(pollUntilCompleted(ctx, taskId, createdAt + taskMs, pollMs || pollIntervalMs, deadline).then(
      (doneAt) => done.push({ taskId, createdAt, doneAt }),
      (err) => { failures.errors++; failures.firstError ??= err.message; },
    ));
  }, timeoutMs);
  await Promise.all(pollers);
  done.forEach((d) => ctx.live.delete(d.taskId));
  const totalMs = done.length ? Math.max(...done.map((d) => d.doneAt)) - start : NaN;
  const perTask = done.map((d) => d.doneAt - d.createdAt - taskMs);
  return {
    tasks, completed: done.length, taskSeconds: seconds, pollMs: pollMs || advisedMs,
    totalMs, overheadPerTaskMs: (totalMs - taskMs) / tasks,
    observedMinusTask: summarize(perTask), medianObservedMinusTaskMs: median(perTask),
    create, ...failures, ids: done.map((d) => d.taskId),
  };
}

/** The same batch with the raw client: starts at the same concurrency, then result() (no polling). */
async function rawBatchE2e(ctx) {
  const { tasks, seconds, createConcurrency, timeoutMs } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  const done = [];
  const waiters = [];
  const start = now();
  const { stat: create } = await measure(tasks, createConcurrency, async () => {
    const id = await startRaw(ctx, seconds);
    const createdAt = now();
    waiters.push(ctx.client.withDeadline(Date.now() + timeoutMs, () => handle(ctx, id).result()).then(() => done.push({ id, createdAt, doneAt: now() }), () => undefined));
  }, timeoutMs);
  await Promise.all(waiters);
  done.forEach((d) => ctx.live.delete(d.id));
  const totalMs = done.length ? Math.max(...done.map((d) => d.doneAt)) - start : NaN;
  const perTask = done.map((d) => d.doneAt - d.createdAt - taskMs);
  return { tasks, completed: done.length, totalMs, overheadPerTaskMs: (totalMs - taskMs) / tasks, medianObservedMinusTaskMs: median(perTask), observedMinusTask: summarize(perTask), create };
}

async function benchE2e(ctx) {
  const { tasks, seconds, unloadedTasks } = ctx.cfg.e2e;
  const taskMs = seconds * 1000;
  log(`e2e: ${unloadedTasks} tasks one at a time`);
  const unloaded = await unloadedE2e(ctx);
  log(`e2e: ${tasks} tasks of ${seconds} s`);
  const { ids, ...batch } = await batchE2e(ctx);
  const temporalSide = await temporalSideOverheads(ctx, ids, taskMs);
  const breakdown = await historyBreakdown(ctx, ids, taskMs);
  await terminateLive(ctx);
  log(`e2e: the same batch with raw starts + result()`);
  const raw = await rawBatchE2e(ctx);
  await terminateLive(ctx);
  return { ...batch, temporalCloseMinusStartMinusTask: summarize(temporalSide), historyBreakdown: breakdown, unloaded, raw };
}

const PHASES = {
  firstTaskPickup: 'start → worker picks up 1st workflow task',
  firstTaskRun: '1st workflow task run (schedules the timer)',
  timerLate: 'timer fired − timer started − 1 s',
  secondTaskPickup: 'timer fired → worker picks up 2nd workflow task',
  secondTaskRun: '2nd workflow task → completed',
  total: 'close − start − 1 s',
};

function renderE2e(e) {
  return [
    `## 5. End to end: ${e.tasks} wait_and_echo tasks of ${e.taskSeconds} s, created at c=${e.create.concurrency}, polled every ${e.pollMs} ms after their first ${e.taskSeconds} s`,
    markdownTable(
      ['tasks', 'completed', 'errors', 'total (ms)', '(total − 1 s)/tasks (ms)', 'median observed − created − 1 s (ms)', 'p95', 'p99', 'Temporal close − start − 1 s p50 (ms)', 'p99', 'creates/s'],
      [[e.tasks, e.completed, e.errors, e.totalMs, e.overheadPerTaskMs, e.medianObservedMinusTaskMs, e.observedMinusTask.p95, e.observedMinusTask.p99, e.temporalCloseMinusStartMinusTask.p50, e.temporalCloseMinusStartMinusTask.p99, e.create.perSecond]],
    ),
    '',
    `Raw baseline, the same batch: raw starts at c=${e.raw.create.concurrency}, then handle.result() (long poll, no polling):`,
    markdownTable(
      ['tasks', 'completed', 'total (ms)', '(total − 1 s)/tasks (ms)', 'median result − started − 1 s (ms)', 'p95', 'p99', 'starts/s', 'ratio total ours/raw'],
      [[e.raw.tasks, e.raw.completed, e.raw.totalMs, e.raw.overheadPerTaskMs, e.raw.medianObservedMinusTaskMs, e.raw.observedMinusTask.p95, e.raw.observedMinusTask.p99, e.raw.create.perSecond, ratio(e.totalMs, e.raw.totalMs)]],
    ),
    '',
    `The observed times include up to one poll interval (${e.pollMs} ms) of polling granularity.`,
    `Without load (${e.unloaded.tasks} tasks one at a time, polled every ${e.unloaded.pollMs} ms): sent → completed observed − 1 s p50 ${e.unloaded.observedMinusTask.p50.toFixed(0)} ms (max ${e.unloaded.observedMinusTask.max.toFixed(0)}), Temporal close − start − 1 s p50 ${e.unloaded.temporalCloseMinusStartMinusTask.p50.toFixed(0)} ms.`,
    '',
    `Temporal-side breakdown from the histories of ${e.historyBreakdown.total?.n ?? 0} tasks (ms beyond the ${e.taskSeconds} s timer):`,
    markdownTable(
      ['phase', 'p50', 'p95', 'p99', 'max'],
      Object.entries(PHASES).map(([key, label]) => {
        const s = e.historyBreakdown[key] ?? {};
        return [label, s.p50, s.p95, s.p99, s.max];
      }),
    ),
  ].join('\n');
}

// ---- resources ------------------------------------------------------------------------------

function renderResources(sections, peak) {
  const rows = Object.entries(sections).map(([name, s]) => {
    const r = s.resources;
    const pct = (cpu) => (100 * cpu) / r.wallSeconds;
    const c = r.cpuSeconds;
    const others = c.machine - c.irq - c.server - c.worker - c.temporal - c.bench;
    return [name, r.wallSeconds, pct(c.server), pct(c.worker), pct(c.temporal), pct(c.bench), pct(c.irq), pct(others), pct(c.machine), r.rssPeakMb.server, r.tcp.listenOverflows, r.tcp.synRetrans];
  });
  return [
    '## Resources per section (CPU as % of one core over the section, from /proc; machine = all cores)',
    markdownTable(['section', 'wall s', 'server %', 'worker %', 'temporal %', 'bench client %', 'irq/softirq %', 'others %', 'machine %', 'server RSS peak MB', 'listen overflows', 'SYN retransmits'], rows),
    '',
    `"others" = processes not started by this run and kernel threads (a busy machine skews the results: check it is near 0); irq/softirq is mostly loopback networking. ${os.availableParallelism()} cores.`,
    '',
    `Peak RSS over the whole run (MB): server ${peak.server.toFixed(0)}, worker ${peak.worker.toFixed(0)}, temporal ${peak.temporal.toFixed(0)}.`,
  ].join('\n');
}

// ---- main -----------------------------------------------------------------------------------

const SECTIONS = [
  { key: 'create', run: benchCreate, render: renderCreate },
  { key: 'get', run: benchGet, render: renderGet },
  { key: 'update', run: benchUpdate, render: renderUpdate },
  { key: 'pollLoad', run: benchPollLoad, render: renderPoll },
  { key: 'endToEnd', run: benchE2e, render: renderE2e },
];

/** BENCH_SECTIONS=create,get,... runs only those (default: all). */
function selectedSections() {
  const wanted = (process.env.BENCH_SECTIONS ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.key === w));
  if (unknown.length) throw new Error(`unknown BENCH_SECTIONS ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.key).join(', ')}`);
  return wanted.length ? SECTIONS.filter((s) => wanted.includes(s.key)) : SECTIONS;
}

/** Runs one section, recording wall time, CPU seconds per process and the server's peak RSS. */
async function runSection(ctx, section) {
  ctx.sampler.resetWindow();
  const cpu0 = ctx.sampler.cpuSnapshot();
  const tcp0 = readTcpCounters();
  const t0 = now();
  const data = await section.run(ctx);
  const cpu1 = ctx.sampler.cpuSnapshot();
  const cpuSeconds = Object.fromEntries(Object.keys(cpu1).map((k) => [k, cpu1[k] - cpu0[k]]));
  data.resources = { wallSeconds: (now() - t0) / 1000, cpuSeconds, rssPeakMb: ctx.sampler.windowPeak(), tcp: tcpDelta(tcp0) };
  console.log(`\n${section.render(data)}\n`);
  return data;
}

async function warmUp(ctx) {
  const n = ctx.cfg.warmupCalls;
  log(`warm-up: ${n} calls of each kind`);
  await measure(n, 1, () => ctx.mcp.listTools());
  const { results } = await measure(n, 1, () => createOurs(ctx, 600));
  await measure(n, 1, () => startRaw(ctx, 600));
  const ids = results.filter(Boolean).map((r) => r.taskId);
  await measure(ids.length, 1, (i) => ctx.mcp.getTask(ids[i]));
  await measure(ids.length, 1, (i) => rawDescribe(ctx, ids[i]));
  await measure(ids.length, 1, (i) => rawQuery(ctx, ids[i]));
  await terminateLive(ctx);
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

async function main(cleanup) {
  const cfg = loadConfig();
  const machine = machineInfo();
  const startedAt = new Date().toISOString();
  log(`${cfg.quick ? 'QUICK' : 'full'} run on ${machine.nproc} × ${machine.cpuModel}`);
  machine.backgroundCpuPercentAtStart = await machineBusyPercent();
  if (machine.backgroundCpuPercentAtStart > 20) {
    log(`WARNING: the machine is already ${machine.backgroundCpuPercentAtStart.toFixed(0)}% busy (of one core) before the run: results will be skewed`);
  }
  const infra = await startInfra(cleanup, { pollIntervalMs: cfg.pollIntervalMs, profileDir: cfg.profileDir });
  log(`Temporal ${infra.address}, MCP ${infra.url}, server pid ${infra.pids.server}`);
  const sampler = startSampler(infra.pids);
  cleanup.add('sampler', undefined, () => sampler.stop());
  const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), sampler, live: new Set() };
  try {
    await warmUp(ctx);
    const results = {};
    for (const section of selectedSections()) results[section.key] = await runSection(ctx, section);
    console.log(`${renderResources(results, sampler.peak())}\nBackground CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core.\n`);
    writeResults({ startedAt, finishedAt: new Date().toISOString(), machine, config: cfg, serverRssPeakMb: sampler.peak().server, rssPeakMb: sampler.peak(), results });
  } finally {
    await terminateLive(ctx).catch(() => undefined);
  }
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
function runBench(main) {
  const cleanup = new Cleanup();
  installSignalHandlers(cleanup);
  main(cleanup)
    .then(() => 0, (err) => {
      console.error(`bench failed: ${err.stack ?? err}`);
      return 1;
    })
    .then(async (code) => {
      await cleanup.run();
      process.exit(code);
    });
}

if (require.main === module) runBench(main);

// bench/peer/run.js runs the same measurements against a peer server
module.exports = {
  measure, mergeRuns, measureInterleaved, forEachBounded, loadConfig, envInt, log, sleep, now,
  createOurs, startRaw, startRawLikeServer, rawDescribe, handle, createFixtureTasks, waitSettled, terminateLive,
  pollOne, pollWindow, batchE2e, connectRaw, installSignalHandlers, runBench, writeResults,
};
