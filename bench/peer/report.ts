/** bench:peer's tables: ours against each peer with the issues' targets, and ours against raw Temporal. */
import type { MachineInfo } from '../infra';
import { renderHistory } from '../measurements/history';
import { atLeast, atMost, judge, markdownTable, ratio, type Target } from '../stats';
import type { CreateRow } from './scenarios';
import { e2eCallsTable } from './calls-report';

const HISTORY_WORKS = { timer: 'a 1 s durable timer', input: 'one input round answered' };
const HISTORY_STACKS = { ours: 'ours', 'mcp-agent': 'mcp-agent', raw: 'raw workflow' };

// ---- the report ------------------------------------------------------------------------------

export const STACKS = ['ours', 'mcp-agent', 'peer-nofsync', 'peer-fsync'];
/** A stack left out (BENCH_STACKS) reads as NaN. */
const safe = (fn: () => number | undefined): number => {
  try {
    return fn() ?? NaN;
  } catch {
    return NaN;
  }
};
const mean2 = <T>(runs: T[], pick: (r: T) => number): number => runs.reduce((a, r) => a + pick(r), 0) / runs.length;

type Values = Record<string, number>;
/** A row's target: on the ratio (atMost, atLeast), or about the values themselves (aboutOurs). */
type RowTarget = Target | { label: string; met(v: Values): boolean; aboutValues: true };
/** A target about the values themselves (ours alone), not about a ratio. */
const aboutOurs = (label: string, met: (v: Values) => boolean): RowTarget => ({ label, met, aboutValues: true });
type AddRow = (name: string, pick: (k: string) => number | undefined, targets?: { agent?: RowTarget; fastmcp?: RowTarget }) => void;
/** The results file's shape (peerRows also reads hand-made ones, test/unit/bench-peer-table.test.ts). */
export type PeerResults = Record<string, any>;

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
    rows.push([
      name,
      v.ours,
      v['mcp-agent'],
      v['peer-nofsync'],
      v['peer-fsync'],
      ra,
      ...verdict(agent, ra, v),
      ratio(v.ours, v['peer-nofsync']),
      rf,
      ...verdict(fastmcp, rf, v),
    ]);
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
    const polled = `polled every ${some.pollMs ?? '?'} ms${some.openLoop === false ? '' : ' (open loop)'}`;
    add(`end to end: ${some.tasks} × 1 s tasks at c=32, ${polled}: total (ms)`, (k) => mean2(e[k], (x: any) => x.totalMs), {
      agent: atMost(1.0),
      fastmcp: atMost(1.0),
    });
    // ours followed by subscription, against the others polled
    if (e.ours?.[0]?.subscribed)
      add(
        '— ours followed by subscriptions/listen (the others polled): total (ms)',
        (k) => mean2(e[k], (x: any) => (k === 'ours' ? x.subscribed.totalMs : x.totalMs)),
        { agent: atMost(1.0) },
      );
    add('— median completion seen − created − 1 s (ms)', (k) => mean2(e[k], (x: any) => x.medianObservedMinusTaskMs));
    add('— status reads answered per task', (k) => mean2(e[k], (x: any) => x.readsPerTask));
    // where a task's time went, from its history: the same Temporal server and timer for every stack
    add('— median start → first workflow task picked up (ms)', (k) => mean2(e[k], (x: any) => x.phases?.firstTaskPickup.p50));
    add('— median first workflow task run (ms)', (k) => mean2(e[k], (x: any) => x.phases?.firstTaskRun.p50));
    add('— median close − start − 1 s (ms)', (k) => mean2(e[k], (x: any) => x.phases?.total.p50));
    add('— completed', (k) => Math.min(...e[k].map((x: any) => x.completed)));
    add('— workflow tasks timed out (a sticky queue not polled in time), per run', (k) => mean2(e[k], (x: any) => x.workflowTaskTimeouts));
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
  add(
    `status reads/s answered: ${liveTasks} live tasks polled every 1 s for ${seconds} s (target ${liveTasks}/s)`,
    (k) => mean2(p[k], (x) => x.achievedPerSecond),
    { fastmcp: atLeast(1.5) },
  );
  add('— poll latency p99 (ms)', (k) => Math.max(...p[k].map((x) => x.latency.p99)));
  add('— errors', (k) => p[k].reduce((a, x) => a + x.errors, 0));
  add('total RSS, idle stack (MB)', (k) => Math.min(...p[k].map((x) => x.rssIdleMb)));
  add(`total RSS, peak with ${liveTasks} live tasks polled (MB)`, (k) => Math.max(...p[k].map((x) => x.rssPeakMb)), {
    agent: atMost(1.0),
    fastmcp: atMost(2.0),
  });
  add('total RSS, after the load ended (MB)', (k) => p[k][p[k].length - 1].rssAfterMb, { agent: atMost(1.0) });
}

function killRows(r: PeerResults, add: AddRow): void {
  const { kill, killIdle, killTuned } = r;
  const all = aboutOurs('ours: all', (v) => v.ours === kill.ours.tasks);
  const none = aboutOurs('ours: 0', (v) => v.ours === 0);
  add(
    `worker SIGKILL, busy until then (${kill.ours.tasks} tasks of ${kill.ours.seconds} s, companions of 1 s ended 1 s before): completed within ${kill.ours.waitS} s`,
    (k) => kill[k].completed,
    { agent: all, fastmcp: all },
  );
  add('— re-executions', (k) => kill[k].reexecutions, { agent: none, fastmcp: none });
  add('— last completion after creation (s)', (k) => kill[k].lastCompletionS, { agent: atMost(1.0) });
  phaseRows(kill, add);
  if (killIdle) {
    add(`worker SIGKILL, idle for ${r.killIdleS} s before the batch: completed`, (k) => killIdle[k]?.completed, { agent: all });
    add('— re-executions', (k) => killIdle[k]?.reexecutions, { agent: none });
    add('— last completion after creation (s)', (k) => killIdle[k]?.lastCompletionS, { agent: atMost(1.0) });
    phaseRows(killIdle, add);
  }
  // only FastMCP's worker has a redelivery timeout to tune: the Temporal stacks show the figures above
  const tuned = (k: string) => (k === 'ours' || k === 'mcp-agent' ? kill : killTuned)[k];
  add(`— FastMCP's worker restarted with redelivery_timeout ${r.tunedRedeliverySeconds} s: completed`, (k) => tuned(k).completed);
  add('— — re-executions', (k) => tuned(k).reexecutions);
  add('— — last completion after creation (s)', (k) => tuned(k).lastCompletionS);
}

/** Where the killed worker's tasks waited, read from their histories (Temporal stacks only). */
function phaseRows(kill: PeerResults, add: AddRow): void {
  add("— tasks whose next workflow task went to the killed worker's sticky queue", (k) => kill[k]?.phases?.scheduledOnSticky);
  add("— workflow tasks timed out (the killed worker's sticky queue)", (k) => kill[k]?.workflowTaskTimeouts);
  add('— the new worker: process start to polling (s)', (k) => kill[k]?.workerStartS);
  add('— timer fired → workflow task started, max (s)', (k) => kill[k]?.phases?.firedToStartMs.max / 1000);
  add(
    '— resumed after a live worker polled (started − later of fired and worker up), max (s)',
    (k) => kill[k]?.phases?.resumeAfterLiveWorkerMs.max / 1000,
    { agent: aboutOurs('ours: ≤ 3 s', (v) => v.ours <= 3) },
  );
}

/** Ours against raw Temporal on the same server in the same run: [name, ours, raw, ratio, target, met]. */
function rawRows(r: PeerResults): unknown[][] {
  const rows: unknown[][] = [];
  const add = (name: string, ours: number, raw: number, target?: Target) => {
    const q = ratio(ours, raw);
    rows.push([name, ours, raw, q, ...judge(target, q)]);
  };
  for (const row of r.create ?? []) {
    add(
      `create p50, c=${row.concurrency}, vs raw start with the same memo and search attributes (ms)`,
      row.ours.p50,
      row.rawLikeServer.p50,
      atMost(1.1),
    );
    add(`create p50, c=${row.concurrency}, vs plain raw start (ms)`, row.ours.p50, row.raw.p50);
  }
  if (r.get) {
    add('tasks/get p50 vs raw describe() (ms)', r.get.ours.p50, r.get.rawDescribe.p50, atMost(1.2));
    add('tasks/get p99 vs raw describe() (ms)', r.get.ours.p99, r.get.rawDescribe.p99);
  }
  if (r.e2e?.ours) e2eRawRows(r.e2e.ours, add);
  return rows;
}

/** Ours polled and subscribed against raw starts polled with describe() and awaited with result(). */
function e2eRawRows(runs: any[], add: (name: string, ours: number, raw: number, target?: Target) => void): void {
  const of = (key: string) => runs.map((x) => x[key]).filter(Boolean);
  const total = (xs: any[]) => (xs.length ? mean2(xs, (x) => x.totalMs) : NaN);
  const [raw, rawPolled, subscribed] = [of('raw'), of('rawPolled'), of('subscribed')];
  const tasks = runs[0].tasks;
  if (rawPolled.length) {
    add(
      `end to end, ${tasks} × 1 s, subscribed vs raw starts polled with describe() (ms)`,
      total(subscribed),
      total(rawPolled),
      atMost(1.2),
    );
    add(`end to end, ${tasks} × 1 s, polled vs raw starts polled with describe() (ms)`, total(runs), total(rawPolled));
  }
  if (raw.length) {
    add(`end to end, ${tasks} × 1 s: polled vs raw plainTimer starts + result() (ms)`, total(runs), total(raw), atMost(1.1));
    if (subscribed.length) add(`end to end, ${tasks} × 1 s: subscribed vs raw starts + result() (ms)`, total(subscribed), total(raw));
  }
}

export function render(r: PeerResults, machine: MachineInfo & { backgroundCpuPercentAtStart: number }): string {
  const agent = r.peer.mcpAgent;
  const d = r.durability;
  const perProcess = r.poll
    ? Object.entries(r.poll)
        .map(([k, runs]: [string, any]) => {
          const last = runs[runs.length - 1];
          const mb = (field: string, n: string) => (last[field]?.[n] === undefined ? '–' : last[field][n].toFixed(0));
          return `${k}: ${Object.keys(last.rssPeakByProcessMb)
            .map((n) => `${n} ${mb('rssIdleByProcessMb', n)} / ${mb('rssPeakByProcessMb', n)} / ${mb('rssAfterByProcessMb', n)}`)
            .join(', ')}`;
        })
        .join('; ')
    : undefined;
  const calls = e2eCallsTable(r.e2e);
  return [
    `## Peer comparison: ours vs mcp-agent ${agent['mcp-agent']} (mcp ${agent.mcp}, temporalio ${agent.temporalio}; same Temporal dev server) and FastMCP ${r.peer.packages.fastmcp} + fastmcp-tasks ${r.peer.packages['fastmcp-tasks']} (Docket, ${r.peer.redis})`,
    '',
    `Durability class: ${d.name} — Temporal's SQLite (WAL) synchronous=${d.sqliteSynchronous} against Redis appendfsync ${d.appendfsync}: ${d.means}.`,
    '',
    markdownTable(
      [
        'measurement',
        `ours (synchronous=${d.sqliteSynchronous})`,
        'mcp-agent',
        'FastMCP, no persistence',
        `FastMCP, appendfsync ${d.appendfsync}`,
        'ours / mcp-agent',
        'target',
        'met',
        'ours / FastMCP no-persist',
        `ours / FastMCP ${d.appendfsync} (like-for-like)`,
        'target (like-for-like)',
        'met',
      ],
      peerRows(r),
    ),
    '',
    ...(perProcess
      ? [
          `RSS per process (MB), idle / peak while polling / after the load: ${perProcess}. Ours and mcp-agent share one Temporal dev server: its RSS counts in both totals.`,
          '',
        ]
      : []),
    'mcp-agent runs on the same Temporal dev server as ours, so its durability is ours by construction; it is',
    'driven as its clients do: `workflows-run` to create, `workflows-get_status` (a Temporal describe()) to read.',
    `Like-for-like with FastMCP is the appendfsync ${d.appendfsync} column; without persistence FastMCP loses every task on a Redis restart.`,
    `BENCH_DURABILITY=${d.name === 'full' ? 'normal' : 'full'} runs the other class. A ratio below 1 is better for latencies, time, memory and events; above 1 for /s.`,
    '',
    ...(r.history
      ? [
          '## Temporal history per task (exact counts from the histories, fetched after the work ran)',
          '',
          renderHistory(r.history, { works: HISTORY_WORKS, stacks: HISTORY_STACKS }),
          '',
        ]
      : []),
    ...(calls
      ? [
          "## Temporal calls per task in the end-to-end batches (its dev server's `service_requests`, the workers' polls included)",
          '',
          calls,
          '',
        ]
      : []),
    '## Ours vs raw Temporal on the same server, same run',
    '',
    markdownTable(['measurement', 'ours', 'raw', 'ours / raw', 'target', 'met'], rawRows(r)),
    '',
    `Machine: ${machine.nproc} × ${machine.cpuModel}, ${machine.memTotalMb} MB, Node ${machine.node}, Temporal CLI ${machine.temporalCli ?? '?'}; every stack, Temporal, Redis and the client share the cores.`,
    `Background CPU before the run: ${machine.backgroundCpuPercentAtStart.toFixed(0)}% of one core; during the run, CPU not used by this run's processes (others + irq): ${r.othersCpuPercent.toFixed(0)}% of one core.`,
  ].join('\n');
}
