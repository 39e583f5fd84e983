/**
 * Chaos: a few hundred tasks of the demo tools (timers, input answered by tasks/update,
 * provisioning with side effects in the effects ledger) with cancels at random moments, while
 * the worker, `serve` and Temporal are SIGKILLed and started again on a seeded schedule. At the
 * end every task is read over tasks/get and checked against what its client did and against
 * the ledger. It prints what it found; it asserts nothing. See bench/README.md.
 *
 *   npm run bench:chaos                          200 tasks, seed 1
 *   npm run bench:chaos -- --tasks 60 --seed 7   smaller, another schedule
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { ledgerCounts } from '../test/support/ledger';
import { type McpTasks, mcpTasks } from '../test/support/mcp-client';
import { DEMO_TOOLS } from '../test/support/paths';
import { freePort } from '../test/support/ports';
import { type Cleanup, type CliProcess, spawnCli } from '../test/support/processes';
import { restartableTemporal, type RestartableTemporal, tempDbFile } from '../test/support/temporal';
import { restartableCluster, startTestCluster } from '../test/support/temporal-cluster';
import { sleep } from '../test/support/wait';
import { driveTask } from './chaos-client';
import { parseArgs, planKills, planTasks, prng, type Role, type Schedule } from './chaos-plan';
import { judge, render, type TaskRecord, TERMINAL } from './chaos-verdict';
import { log, runBench } from './script';
import { median } from './stats';

// the plan and the verdict, for their unit test (test/unit/bench-chaos.test.ts)
export { judge, parseArgs, planKills, planTasks, prng };

// ---- the processes ------------------------------------------------------------------------------

/** The processes chaos kills and starts again. */
interface ChaosStack {
  url: string;
  temporal: RestartableTemporal;
  kill(role: Role): Promise<unknown>;
  restart(role: Role): Promise<unknown>;
}

/** A dev server (SQLite in a temp folder); BENCH_TEMPORAL=cluster: the cluster on PostgreSQL, a kill taking its server processes in turn. */
async function chaosTemporal(cleanup: Cleanup): Promise<RestartableTemporal> {
  if (process.env.BENCH_TEMPORAL === 'cluster') {
    const cluster = restartableCluster(await startTestCluster(log), log);
    cleanup.add('temporal cluster', undefined, () => cluster.stop());
    return cluster;
  }
  const temporal = await restartableTemporal(tempDbFile('mtt-bench-'));
  cleanup.add('temporal dev server', temporal.pid(), async () => {
    await temporal.stop();
    fs.rmSync(path.dirname(temporal.dbFile), { recursive: true, force: true });
  });
  return temporal;
}

/** Worker and `serve` as child processes that can be SIGKILLed and started again (serve on a fixed port). */
async function startStack(cleanup: Cleanup, ledgerDir: string): Promise<ChaosStack> {
  const temporal = await chaosTemporal(cleanup);
  const env = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    MCP_TOOLS_MODULE: DEMO_TOOLS,
    MCP_TASKS_LEDGER_DIR: ledgerDir,
    MCP_LOG_LEVEL: 'warn',
  };
  const port = await freePort();
  const roles = {
    worker: { args: ['worker'], ready: /worker polling task queue/ },
    server: { args: ['serve', '--port', String(port), '--temporal-timeout-ms', '5000'], ready: /MCP endpoint: (\S+)/ },
  };
  const current: Partial<Record<'worker' | 'server', CliProcess>> = {};
  /** Starts a role, again and again until it is up (a worker cannot start while Temporal is down). */
  const start = async (role: 'worker' | 'server') => {
    for (let attempt = 1; ; attempt++) {
      const proc = spawnCli(roles[role].args, env);
      cleanup.pids.add(proc.pid);
      try {
        await proc.waitFor(roles[role].ready, 60_000);
        current[role] = proc;
        return proc;
      } catch (err) {
        await proc.stop('SIGTERM', 2_000);
        if (attempt === 30) throw err;
        await sleep(1_000);
      }
    }
  };
  for (const role of ['worker', 'server'] as const) cleanup.add(role, undefined, () => current[role]?.stop());
  await start('worker');
  const [, url] = (await start('server')).output().match(roles.server.ready)!;
  return {
    url,
    temporal,
    async kill(role) {
      if (role === 'temporal') {
        cleanup.pids.delete(temporal.pid() ?? 0);
        return temporal.kill();
      }
      const proc = current[role]!;
      current[role] = undefined;
      await proc.stop('SIGKILL', 1_000);
      cleanup.pids.delete(proc.pid);
    },
    async restart(role) {
      if (role !== 'temporal') return start(role);
      await temporal.restart();
      if (temporal.pid()) cleanup.pids.add(temporal.pid()!);
    },
  };
}

/** Runs each role's kill schedule (roles at once, each role in order); resolves when all are done and up. */
async function runKills(stack: ChaosStack, schedule: Schedule, t0: number, kills: Record<Role, number>): Promise<void> {
  await Promise.all(
    (Object.entries(schedule) as Array<[Role, Schedule[Role]]>).map(async ([role, events]) => {
      let upSince = 0;
      for (const { at, downMs } of events) {
        await sleep(Math.max(t0 + at, upSince + 3_000) - Date.now()); // up for 3 s at least between kills
        log(`SIGKILL ${role}`);
        await stack.kill(role);
        kills[role]++;
        await sleep(downMs);
        await stack.restart(role);
        upSince = Date.now();
        log(`${role} is back`);
      }
    }),
  );
}

/**
 * Reads every task over tasks/get until it is terminal and its workflow has closed in Temporal
 * (a cancelled task reads cancelled at once while its undo still runs), or settleMs passed.
 */
async function settle(mcp: McpTasks, client: Client, records: TaskRecord[], settleMs: number): Promise<void> {
  const deadline = Date.now() + settleMs;
  const open = new Set(records.filter((r) => r.taskId));
  while (open.size > 0 && Date.now() < deadline) {
    const batch = [...open];
    for (let i = 0; i < batch.length; i += 16) {
      await Promise.all(
        batch.slice(i, i + 16).map(async (r) => {
          const task = await mcp.getTask(r.taskId!).catch(() => undefined);
          if (!task) return;
          r.final = task;
          if (!TERMINAL.includes(task.status)) return;
          r.terminalAt ??= Date.now();
          const closed = await client.workflow
            .getHandle(r.taskId!)
            .describe()
            .then(
              (d) => d.status.name !== 'RUNNING',
              () => false,
            );
          if (closed) open.delete(r);
        }),
      );
    }
    if (open.size > 0) await sleep(1_000);
  }
}

/** The task's history as event types (CHAOS_HISTORY=1): where a wrong end came from. */
async function eventTypes(client: Client, taskId: string): Promise<string> {
  const history = await client.workflow
    .getHandle(taskId)
    .fetchHistory()
    .catch((err: Error) => ({ error: err.message }));
  if ('error' in history) return history.error;
  return (history.events ?? []).map((e) => proto.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '')).join(' ');
}

async function temporalStatuses(client: Client, records: TaskRecord[]) {
  const statuses = new Map<string, string>();
  for (const r of records.filter((x) => x.taskId)) {
    const d = await client.workflow
      .getHandle(r.taskId!)
      .describe()
      .catch(() => undefined);
    if (d) statuses.set(r.taskId!, d.status.name);
  }
  // starts no client heard of (a create retried after a lost answer): how many still run
  const known = new Set(records.map((x) => x.taskId));
  let unacknowledged = 0;
  let unacknowledgedRunning = 0;
  for await (const wf of client.workflow.list()) {
    // this Temporal holds the bench's workflows only
    if (known.has(wf.workflowId)) continue;
    unacknowledged++;
    if (wf.status.name === 'RUNNING') unacknowledgedRunning++;
  }
  return { statuses, unacknowledged, unacknowledgedRunning };
}

async function main(cleanup: Cleanup): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const rnd = prng(opts.seed);
  const plans = planTasks(opts, rnd);
  const schedule = planKills(opts, rnd);
  const ledgerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-chaos-ledger-'));
  cleanup.add('ledger', undefined, async () => fs.rmSync(ledgerDir, { recursive: true, force: true }));
  log(`${opts.tasks} tasks over ${opts.spreadMs / 1000} s, seed ${opts.seed}, ${opts.kills} SIGKILLs per process; ledger ${ledgerDir}`);
  const started = Date.now();
  const stack = await startStack(cleanup, ledgerDir);
  const mcp = mcpTasks(stack.url);
  const stats = { createRetries: 0 };
  const kills = { worker: 0, server: 0, temporal: 0 };
  const t0 = Date.now() + 1_000;
  const [records] = await Promise.all([Promise.all(plans.map((p) => driveTask(mcp, p, t0, stats))), runKills(stack, schedule, t0, kills)]);
  log(`chaos over: every process is up; reading every task until it ends (at most ${opts.settleSeconds} s)`);
  const connection = await Connection.connect({ address: stack.temporal.address });
  cleanup.add('Temporal connection', undefined, () => connection.close());
  const client = new Client({ connection, namespace: 'default' });
  await settle(mcp, client, records, opts.settleSeconds * 1000);
  const effects = ledgerCounts(ledgerDir, 'effects.log');
  const { statuses, unacknowledged, unacknowledgedRunning } = await temporalStatuses(client, records);
  const verdicts = new Map(records.map((r) => [r, judge(r, effects, statuses.get(r.taskId ?? ''))]));
  const wrong = records.filter((r) => !verdicts.get(r)!.right || verdicts.get(r)!.temporalDisagrees);
  for (const r of wrong.slice(0, 15)) {
    const v = verdicts.get(r)!;
    const shape =
      r.kind === 'provision_environment'
        ? ` ${r.args.steps} × ${r.args.stepMs} ms`
        : r.kind === 'wait_and_echo'
          ? ` ${r.args.seconds} s`
          : '';
    log(
      `${r.kind}${shape} ${r.taskId ?? '(never created)'}: tasks/get ${r.final?.status ?? 'nothing'}${v.why ? ` (${v.why})` : ''}` +
        `${r.cancel ? `, cancel at ${Math.round(r.cancelAfterMs!)} ms reported ${r.cancel.reported}` : ''}${r.errors.length ? `, errors: ${r.errors.join('; ')}` : ''}`,
    );
    if (r.taskId && process.env.CHAOS_HISTORY) log(`  history: ${await eventTypes(client, r.taskId)}`);
  }
  const durations = records.filter((r) => r.terminalAt).map((r) => (r.terminalAt! - r.createdAt!) / 1000);
  console.log(
    `\n${render(records, verdicts, {
      seed: opts.seed,
      kills,
      ...stats,
      unacknowledged,
      unacknowledgedRunning,
      effectLines: [...effects.values()].reduce((a, n) => a + n, 0),
      effectKeysTwice: [...effects.values()].filter((n) => n > 1).length,
      clientErrors: records.reduce((a, r) => a + r.errors.length, 0),
      medianSeconds: median(durations),
      runSeconds: (Date.now() - started) / 1000,
    })}\n`,
  );
}

if (require.main === module) runBench(main);
