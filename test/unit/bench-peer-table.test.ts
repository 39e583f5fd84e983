// The bench:peer table (issue 14, item 5; issue 26, item 1): every row the issues ask for, ratios
// against mcp-agent and on the FastMCP like-for-like column (Redis with the appendfsync of the
// run's durability class), targets judged the right way.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- typed loosely here: the fixtures are partial runs
const { peerRows } = require('../../bench/peer/run') as { peerRows: (r: unknown) => unknown[][] };

const STACKS = ['ours', 'mcp-agent', 'peer-nofsync', 'peer-fsync'] as const;
type Stack = (typeof STACKS)[number];

/**
 * A run where ours is `factor` × FastMCP and `agentFactor` × mcp-agent on every latency, time and
 * memory figure (and the inverse on rates); `stacks` are the stacks that ran.
 */
function run(
  factor: number,
  { kill = { completed: 20, reexecutions: 0 }, agentFactor = factor, stacks = STACKS as readonly Stack[] } = {},
) {
  const per = <T>(f: (k: Stack) => T) => Object.fromEntries(stacks.map((k) => [k, f(k)]));
  // the peers' figures are the base; ours is the base × factor against FastMCP, × agentFactor against mcp-agent
  const base = (k: Stack, v: number) => (k === 'mcp-agent' ? (v * factor) / agentFactor : v);
  const mine = (k: Stack, v: number) => (k === 'ours' ? v * factor : base(k, v));
  const rate = (k: Stack, v: number) => (k === 'ours' ? v / factor : k === 'mcp-agent' ? (v * agentFactor) / factor : v);
  const poll = (k: Stack) => [
    {
      liveTasks: 1000,
      seconds: 30,
      achievedPerSecond: rate(k, 100),
      errors: 0,
      latency: { p99: mine(k, 10) },
      rssIdleMb: mine(k, 200),
      rssPeakMb: mine(k, 300),
      rssAfterMb: mine(k, 250),
    },
  ];
  return {
    create: [1, 8, 32].map((concurrency) => ({
      concurrency,
      ...per((k) => ({ p50: mine(k, 10), p99: mine(k, 20), perSecond: rate(k, 100) })),
    })),
    get: per((k) => ({ p50: mine(k, 5), p99: mine(k, 9) })),
    poll: per(poll),
    e2e: per((k) => [
      {
        tasks: 200,
        totalMs: mine(k, 3000),
        medianObservedMinusTaskMs: mine(k, 500),
        completed: 200,
        // from the histories: only the stacks whose tasks are Temporal workflows have them
        ...(k === 'ours' || k === 'mcp-agent'
          ? { phases: { firstTaskPickup: { p50: mine(k, 400) }, firstTaskRun: { p50: mine(k, 40) }, total: { p50: mine(k, 450) } } }
          : {}),
      },
    ]),
    kill: per((k) => ({
      tasks: 20,
      seconds: 5,
      waitS: 60,
      lastCompletionS: 15,
      workflowTaskTimeouts: 0,
      ...(k === 'ours' ? kill : { completed: 0, reexecutions: 0 }),
    })),
    killTuned: per(() => ({ completed: 20, reexecutions: 20, lastCompletionS: 30 })),
    tunedRedeliverySeconds: 10,
  };
}

const row = (rows: unknown[][], start: string) => {
  const found = rows.find((r) => String(r[0]).startsWith(start));
  if (!found) throw new Error(`no row "${start}"`);
  return found;
};
// [name, ours, mcp-agent, FastMCP no-persist, FastMCP appendfsync, ours/mcp-agent, target, met, ours/no-persist, ours/appendfsync, target, met]
const RATIO_AGENT = 5;
const MET_AGENT = 7;
const RATIO_FSYNC = 9;
const MET = 11;

describe('bench:peer table', () => {
  it('has every row the issues ask for, with the FastMCP ratio taken against the appendfsync column and one against mcp-agent', () => {
    const rows = peerRows(run(2, { agentFactor: 4 }));
    for (const c of [1, 8, 32]) {
      for (const p of ['p50', 'p99']) {
        expect(row(rows, `create ${p}, c=${c} (ms)`)[RATIO_FSYNC]).toBe(2);
        expect(row(rows, `create ${p}, c=${c} (ms)`)[RATIO_AGENT]).toBe(4);
      }
    }
    for (const name of [
      'create throughput, c=32',
      'status read p50',
      'status read p99',
      'status reads/s answered: 1000 live tasks',
      'end to end: 200 × 1 s',
      'total RSS, idle',
      'total RSS, peak',
      'total RSS, after',
      'worker SIGKILL',
      '— re-executions',
      '— workflow tasks timed out',
    ])
      row(rows, name);
    expect(row(rows, 'create throughput, c=32')[RATIO_FSYNC]).toBe(0.5);
    expect(row(rows, 'create throughput, c=32')[RATIO_AGENT]).toBe(0.25);
  });

  it('judges latency and memory targets as lower-is-better and rates as higher-is-better', () => {
    const slower = peerRows(run(2));
    expect(row(slower, 'create p50, c=1')[MET]).toBe('not met');
    expect(row(slower, 'create throughput, c=32')[MET]).toBe('not met');
    expect(row(slower, 'end to end')[MET]).toBe('not met');
    expect(row(slower, 'status reads/s answered')[MET]).toBe('not met'); // half the peer's rate
    const faster = peerRows(run(0.5));
    expect(row(faster, 'create p50, c=1')[MET]).toBe('met');
    expect(row(faster, 'create throughput, c=32')[MET]).toBe('met');
    expect(row(faster, 'total RSS, peak')[MET]).toBe('met');
    expect(row(faster, 'status reads/s answered')[MET]).toBe('met'); // 2× the peer's rate against a target of 1.5×
    expect(row(peerRows(run(1 / 1.4)), 'status reads/s answered')[MET]).toBe('not met'); // 1.4× < 1.5×
  });

  it('judges the mcp-agent targets (end to end, RSS peak and after, create, status read ≤ 1.0×) on the mcp-agent ratio alone', () => {
    const targets = ['create p50, c=1', 'status read p50', 'end to end', 'total RSS, peak', 'total RSS, after'];
    const behind = peerRows(run(0.5, { agentFactor: 1.1 })); // ahead of FastMCP, 10% behind mcp-agent
    for (const name of targets) {
      expect(row(behind, name)[6]).toBe('≤ 1×');
      expect(row(behind, name)[MET_AGENT]).toBe('not met');
    }
    expect(row(behind, 'create throughput, c=32')[MET_AGENT]).toBe('not met');
    const ahead = peerRows(run(2, { agentFactor: 0.9 })); // behind FastMCP, ahead of mcp-agent
    for (const name of targets) expect(row(ahead, name)[MET_AGENT]).toBe('met');
    expect(row(ahead, 'create throughput, c=32')[MET_AGENT]).toBe('met');
    expect(row(ahead, 'end to end')[MET]).toBe('not met');
  });

  it('leaves a target unjudged (–) for a stack that did not run', () => {
    const rows = peerRows(run(0.5, { stacks: ['ours', 'peer-nofsync', 'peer-fsync'] }));
    expect(row(rows, 'end to end')[RATIO_AGENT]).toBeNaN();
    expect(row(rows, 'end to end')[MET_AGENT]).toBe('–');
    expect(row(rows, 'end to end')[MET]).toBe('met');
  });

  it("shows where a task's time went, from the histories of the Temporal-backed stacks (– for FastMCP)", () => {
    const rows = peerRows(run(2, { agentFactor: 1.5 }));
    const pickup = row(rows, '— median start → first workflow task picked up (ms)');
    expect(pickup[1]).toBe(800); // ours: 2 × FastMCP's base, 1.5 × mcp-agent's
    expect(pickup[2]).toBeCloseTo(533.33, 1);
    expect(pickup[RATIO_AGENT]).toBe(1.5);
    expect(pickup[RATIO_FSYNC]).toBeNaN();
    expect(row(rows, '— median first workflow task run (ms)')[RATIO_AGENT]).toBe(1.5);
    expect(row(rows, '— median close − start − 1 s (ms)')[1]).toBe(900);
  });

  it('meets the SIGKILL target only when every task completed and none ran twice', () => {
    expect(row(peerRows(run(1)), 'worker SIGKILL')[MET]).toBe('met');
    expect(row(peerRows(run(1)), 'worker SIGKILL')[MET_AGENT]).toBe('met');
    expect(row(peerRows(run(1, { kill: { completed: 19, reexecutions: 0 } })), 'worker SIGKILL')[MET]).toBe('not met');
    expect(row(peerRows(run(1, { kill: { completed: 20, reexecutions: 1 } })), '— re-executions')[MET]).toBe('not met');
    expect(row(peerRows(run(1, { kill: { completed: 20, reexecutions: 1 } })), '— re-executions')[MET_AGENT]).toBe('not met');
  });
});

describe("the end-to-end batches' Temporal calls per task", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
  const { e2eCallsTable } = require('../../bench/peer/calls-report') as { e2eCallsTable: (e: unknown) => string | undefined };
  const batch = (calls: Record<string, number>) => ({ tasks: 100, temporalCalls: calls });

  test('per task, averaged over the runs, a column per batch, operations by their largest count, and a total', () => {
    const ours = [
      { ...batch({ DescribeWorkflowExecution: 400, StartWorkflowExecution: 100 }), subscribed: batch({ DescribeWorkflowExecution: 200 }) },
      { ...batch({ DescribeWorkflowExecution: 600, StartWorkflowExecution: 100 }), subscribed: batch({ DescribeWorkflowExecution: 200 }) },
    ];
    const table = e2eCallsTable({ ours, 'mcp-agent': [batch({ DescribeWorkflowExecution: 300, StartWorkflowExecution: 100 })] })!;
    const lines = table.split('\n');
    expect(lines[0]).toBe('| Temporal frontend calls per task | ours polled | ours subscribed | mcp-agent polled |');
    expect(lines[2]).toBe('| DescribeWorkflowExecution | 5.00 | 2.00 | 3.00 |');
    expect(lines[3]).toBe('| StartWorkflowExecution | 1.00 | 0.00 | 1.00 |');
    expect(lines[4]).toBe('| all | 6.00 | 2.00 | 4.00 |');
  });

  test('no table where no batch counted its calls (a run on the cluster, or without the e2e section)', () => {
    expect(e2eCallsTable(undefined)).toBeUndefined();
    expect(e2eCallsTable({ ours: [{ tasks: 100 }] })).toBeUndefined();
  });
});
