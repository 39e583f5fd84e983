/** What bench:peer measures on every stack: create, get, poll load, end to end, histories (its worker kill: worker-kill.ts). */
import { sleep } from '../../test/support/wait';
import * as bench from '../clients';
import { startSampler } from '../infra';
import { type Measured, measure, measureInterleaved, mergeRuns, type PollAcc, pollOne, type Stat } from '../measure';
import { batchE2e, historyBreakdown, rawBatchE2e } from '../measurements/end-to-end';
import { rawPolledBatchE2e, subscribedBatchE2e } from './followed-batch';
import { awaitClosed, type HistoryCounts, historyCounts } from '../measurements/history';
import { log, now } from '../script';
import { summarize } from '../stats';
import { type BatchCost, type CpuSnapshot, withCost } from './batch-cost';
import type { PeerConfig } from './config';
import { onTemporal, type Stack } from './stacks';

/** Runs fn(stack) for each stack, then again in reverse order (A/B/B/A), `rounds` times: against drift. */
export async function abba<T>(stacks: Stack[], fn: (s: Stack) => Promise<T>, rounds = 1): Promise<Record<string, T[]>> {
  const out = Object.fromEntries(stacks.map((s) => [s.key, [] as T[]]));
  for (let round = 0; round < rounds; round++)
    for (const order of [stacks, [...stacks].reverse()]) {
      for (const s of order) out[s.key].push(await fn(s));
    }
  return out;
}

// ---- scenarios -----------------------------------------------------------------------------

/** A create row: the concurrency, and per stack (and raw, rawLikeServer) its merged stat. */
export type CreateRow = { concurrency: number } & Record<string, any>;

export async function scenarioCreate(stacks: Stack[], ours: Stack, cfg: PeerConfig): Promise<CreateRow[]> {
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
export async function scenarioGet(stacks: Stack[], ours: Stack, cfg: PeerConfig): Promise<Record<string, Stat>> {
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
export async function pollLoad(s: Stack, cfg: PeerConfig) {
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

/**
 * The batch polled at the interval ours advises, open loop, on every stack; in ours' turn also
 * followed by subscription, and the same batch of raw starts polled with describe() at that
 * interval and awaited with result() (the same timer, no task runtime, on the same worker).
 */
export async function e2e(s: Stack, cfg: PeerConfig, ours: Stack, cpu: CpuSnapshot) {
  const { tasks, seconds, pollMs } = cfg.e2e;
  log(`e2e: ${s.key}: ${tasks} tasks of ${seconds} s, polled every ${pollMs} ms (open loop)`);
  const { ids: batchIds, ...batch } = await withCost(cpu, ours.metricsUrl, () => batchE2e(s.ctx));
  // what a short sticky schedule-to-start timeout costs a busy live worker: workflow tasks that timed out and replayed elsewhere
  const workflowTaskTimeouts = await s.workflowTaskTimeouts?.(batchIds.map((taskId) => ({ taskId, text: '' })));
  // where each task's time went, from its history (the Temporal-backed stacks share ours' server)
  const phases = onTemporal(s) ? await historyBreakdown(ours.ctx, batchIds, seconds * 1000, batchIds.length) : undefined;
  const r: typeof batch & {
    workflowTaskTimeouts?: number;
    phases?: Awaited<ReturnType<typeof historyBreakdown>>;
    subscribed?: Awaited<ReturnType<typeof subscribedBatchE2e>> & BatchCost;
    rawPolled?: Awaited<ReturnType<typeof rawPolledBatchE2e>> & BatchCost;
    raw?: Awaited<ReturnType<typeof rawBatchE2e>> & BatchCost;
  } = { ...batch, workflowTaskTimeouts, phases };
  await s.clearLive();
  if (s === ours) {
    log(`e2e: ours: ${tasks} tasks followed by subscriptions/listen`);
    r.subscribed = await withCost(cpu, ours.metricsUrl, () => subscribedBatchE2e(s.ctx, s.url!));
    await s.clearLive();
    log(`e2e: raw: ${tasks} raw plainTimer starts polled with describe() every ${pollMs} ms`);
    r.rawPolled = await withCost(cpu, ours.metricsUrl, () => rawPolledBatchE2e(s.ctx, pollMs));
    await s.clearLive();
    log(`e2e: raw: ${tasks} raw plainTimer starts + result()`);
    r.raw = await withCost(cpu, ours.metricsUrl, () => rawBatchE2e(s.ctx, 'plainTimer'));
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
export async function scenarioHistory(stacks: Stack[], ours: Stack, cfg: PeerConfig) {
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
      const { taskId } =
        s.key === 'ours'
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
