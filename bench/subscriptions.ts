/**
 * Push against poll: the same live tasks watched through `subscriptions/listen` (Temporal's
 * history long-poll behind it) and through `tasks/get` every second. The tasks are
 * approve_expense tasks waiting for their answer. For each mode: the Temporal calls per second
 * the MCP server makes while they are idle, the notification latency once they are answered
 * (the workflow closing in Temporal → the client seeing it), and the server's RSS.
 *
 *   npm run bench:subscriptions                 1,000 tasks per mode (about 4 minutes)
 *   BENCH_QUICK=1 npm run bench:subscriptions   200 tasks per mode
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type McpTasks, mcpTasks, subscribe } from '../test/support/mcp-client';
import { ROOT } from '../test/support/paths';
import { freePort, HOST } from '../test/support/ports';
import type { Cleanup } from '../test/support/processes';
import type { ProcessStack } from '../test/support/servers';
import { sleep } from '../test/support/wait';
import { machineBusyPercent, machineInfo, type Sampler, startInfra, startSampler } from './infra';
import { logger, runBench, writeResults } from './script';
import { callsBetween, type Counts, temporalCalls } from './temporal-calls';
import { fmt, markdownTable, summarize } from './stats';

const quick = process.env.BENCH_QUICK === '1';
const TASKS = Number(process.env.BENCH_SUB_TASKS ?? (quick ? 200 : 1000));
const STREAMS = 10;
const IDLE_SECONDS = quick ? 10 : 60; // longer than Temporal's long-poll period (20 s), so renewals are counted
/** The tasks are answered (and end) spread over this window, after the idle measurement. */
const END_SPREAD_SECONDS = 20;
/** The Temporal calls a tasks/get or a subscription makes (the worker's own polls are left out). */
const READS = ['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory', 'GetWorkflowExecutionHistoryReverse', 'QueryWorkflow'];
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'subscriptions.json');
const log = logger('bench:subscriptions');

function callsPerSecond(before: Counts, after: Counts, seconds: number) {
  const moved = callsBetween(before, after);
  const total = READS.reduce((sum, op) => sum + (moved[op] ?? 0), 0);
  const byOp = READS.map((op): [string, number] => [op, (moved[op] ?? 0) / seconds]).filter(([, v]) => v > 0);
  return { total: total / seconds, byOp: Object.fromEntries(byOp) };
}

/** approve_expense tasks: each waits for its answer, idle, until answerAll ends it. */
async function createTasks(mcp: McpTasks): Promise<string[]> {
  const ids: string[] = new Array(TASKS);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < TASKS) {
        const i = next++;
        const created = await mcp.rpc('tools/call', { name: 'approve_expense', arguments: { amount: i + 1, description: 'bench' } });
        ids[i] = created.taskId;
      }
    }),
  );
  return ids;
}

let retriedUpdates = 0;

/** Answers every task, spread evenly over END_SPREAD_SECONDS: each then completes at its own moment. */
async function answerAll(mcp: McpTasks, ids: string[]): Promise<void> {
  const start = Date.now();
  const answer = { approval: { action: 'accept', content: { approved: true } } };
  await Promise.all(
    ids.map(async (taskId, i) => {
      await sleep(start + (i * END_SPREAD_SECONDS * 1000) / ids.length - Date.now());
      // under the polling load Temporal may answer late (-32603): retried, as a client would
      for (let attempt = 1; ; attempt++) {
        try {
          return await mcp.updateTask(taskId, answer);
        } catch (err) {
          if ((err as { code?: number }).code !== -32603 || attempt === 5) throw err;
          retriedUpdates++;
          await sleep(500 * attempt);
        }
      }
    }),
  );
}

/** One subscriptions/listen stream; calls onTask(params, receivedAt) for each notifications/tasks. */
type OnTask = (task: any, receivedAt: number) => void;

async function listen(url: string, taskIds: string[], onTask: OnTask): Promise<{ accepted: string[]; done: Promise<void> }> {
  const stream = await subscribe(url, taskIds);
  if (stream.error) throw new Error(`listen refused: ${JSON.stringify(stream.error)}`);
  let acknowledged!: (taskIds: string[]) => void;
  const ack = new Promise<string[]>((r) => (acknowledged = r));
  const done = (async () => {
    const HOUR = 3_600_000;
    for (let message = await stream.next(HOUR); message !== undefined; message = await stream.next(HOUR)) {
      if (message.method === 'notifications/subscriptions/acknowledged') acknowledged(message.params.notifications.taskIds);
      else if (message.method === 'notifications/tasks') onTask(message.params, Date.now());
    }
  })();
  return { accepted: await ack, done };
}

/** Polls every task at 1 Hz (staggered) until it is completed; calls onTask like listen does. */
function pollAll(mcp: McpTasks, taskIds: string[], onTask: OnTask): Promise<unknown> {
  const start = Date.now();
  return Promise.all(
    taskIds.map(async (taskId, i) => {
      await sleep((i * 1000) / taskIds.length);
      for (let slot = 1; ; slot++) {
        const task = await mcp.getTask(taskId).catch(() => undefined);
        if (task) onTask(task, Date.now());
        if (task?.status === 'completed') return;
        await sleep(start + (i * 1000) / taskIds.length + slot * 1000 - Date.now());
      }
    }),
  );
}

type Mode = 'subscribed' | 'polled';

async function runMode(mode: Mode, infra: ProcessStack, temporal: Client, metricsUrl: string, sampler: Sampler) {
  const mcp = mcpTasks(infra.url);
  log(`${mode}: creating ${TASKS} tasks`);
  const ids = await createTasks(mcp);
  const seenCompleted = new Map<string, number>();
  const seenRunning = new Set<string>(); // its workflow ran and asks for its answer: from then on the task is idle
  const onTask: OnTask = (task, at) => {
    if (task.status === 'input_required') seenRunning.add(task.taskId);
    if (task.status === 'completed' && !seenCompleted.has(task.taskId)) seenCompleted.set(task.taskId, at);
  };
  let finished: Promise<unknown>;
  if (mode === 'subscribed') {
    const per = Math.ceil(TASKS / STREAMS);
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, (_, s) => listen(infra.url, ids.slice(s * per, (s + 1) * per), onTask)),
    );
    const accepted = streams.reduce((n, s) => n + s.accepted.length, 0);
    if (accepted !== TASKS) throw new Error(`only ${accepted} of ${TASKS} tasks accepted`);
    finished = Promise.all(streams.map((s) => s.done));
  } else {
    finished = pollAll(mcp, ids, onTask);
  }
  // settle: every workflow has run once, subscriptions are open, polls are in their rhythm
  for (const deadline = Date.now() + 60_000; seenRunning.size < TASKS && Date.now() < deadline;) await sleep(200);
  await sleep(2000);
  const rssBefore = sampler.current().server;
  sampler.resetWindow();
  const before = await temporalCalls(metricsUrl);
  log(`${mode}: measuring ${IDLE_SECONDS} s of idle tasks`);
  await sleep(IDLE_SECONDS * 1000);
  const idle = callsPerSecond(before, await temporalCalls(metricsUrl), IDLE_SECONDS);
  log(`${mode}: answering the tasks over ${END_SPREAD_SECONDS} s`);
  await answerAll(mcp, ids);
  await finished;
  const latencies: number[] = [];
  const retried = retriedUpdates;
  retriedUpdates = 0;
  for (const taskId of ids) {
    const closeTime = (await temporal.workflow.getHandle(taskId).describe()).closeTime;
    latencies.push(seenCompleted.get(taskId)! - closeTime!.getTime());
  }
  return {
    mode,
    tasks: TASKS,
    idleCallsPerSecond: idle,
    rssBeforeMb: rssBefore,
    rssPeakMb: sampler.windowPeak().server,
    latencyMs: summarize(latencies),
    retriedUpdates: retried,
  };
}

async function main(cleanup: Cleanup): Promise<void> {
  const busy = await machineBusyPercent();
  if (busy > 20) log(`warning: the machine is already ${busy.toFixed(0)}% busy; numbers will be noisy`);
  const metricsPort = await freePort();
  const infra = await startInfra(cleanup, {
    pollIntervalMs: 1000,
    metricsPort,
    serveArgs: ['--max-subscribed-tasks-per-caller', String(TASKS)],
  });
  const metricsUrl = `http://${HOST}:${metricsPort}/metrics`;
  const connection = await Connection.connect({ address: infra.address });
  cleanup.add('client connection', undefined, () => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  const sampler = startSampler(infra.pids);
  cleanup.add('sampler', undefined, async () => sampler.stop());
  const results: Result[] = [];
  for (const mode of ['subscribed', 'polled'] as const) {
    results.push(await runMode(mode, infra, temporal, metricsUrl, sampler));
    log(`${mode}: ${JSON.stringify(results.at(-1))}`);
  }
  print(results);
  writeResults({ machine: { ...machineInfo(), backgroundCpuPercentAtStart: busy }, results }, RESULTS_FILE);
}

type Result = Awaited<ReturnType<typeof runMode>>;

function print(results: Result[]): void {
  const [sub, poll] = results;
  const row = (label: string, f: (r: Result) => string, unit = '') => [label, `${f(sub)}${unit}`, `${f(poll)}${unit}`];
  const ops = (r: Result) =>
    Object.entries(r.idleCallsPerSecond.byOp)
      .map(([op, v]) => `${op} ${fmt(v)}`)
      .join(', ') || 'none';
  console.log(`\n## Push against poll: ${TASKS} live tasks, one MCP server\n`);
  console.log(
    markdownTable(
      ['measurement', 'subscribed (subscriptions/listen)', 'polled (tasks/get at 1 Hz)'],
      [
        row('Temporal calls/s while the tasks are idle', (r) => fmt(r.idleCallsPerSecond.total)),
        row('— by operation', ops),
        row(
          'latency, workflow closed → client saw completed: p50 / p99 / max (ms)',
          (r) => `${fmt(r.latencyMs.p50)} / ${fmt(r.latencyMs.p99)} / ${fmt(r.latencyMs.max)}`,
        ),
        row('server RSS before → peak (MB)', (r) => `${fmt(r.rssBeforeMb, 0)} → ${fmt(r.rssPeakMb, 0)}`),
        row('tasks/update answered -32603 and retried', (r) => String(r.retriedUpdates)),
      ],
    ),
  );
}

runBench(main);
