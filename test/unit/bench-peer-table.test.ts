// The bench:peer table (issue 14, item 5): every row the issue asks for, ratios on the
// like-for-like column (the peer with Redis appendfsync always), targets judged the right way.
const { peerRows } = require('../../bench/peer/run') as { peerRows: (r: unknown) => unknown[][] };

const STACKS = ['ours', 'peer-nofsync', 'peer-fsync'] as const;
type Stack = (typeof STACKS)[number];
const per = <T>(f: (k: Stack) => T) => Object.fromEntries(STACKS.map((k) => [k, f(k)]));

/** A run where ours is `factor` × the peer on every latency, time and memory figure. */
function run(factor: number, kill = { completed: 20, reexecutions: 0 }) {
  const mine = (k: Stack, v: number) => (k === 'ours' ? v * factor : v);
  const poll = (k: Stack) => [{ liveTasks: 1000, seconds: 30, achievedPerSecond: mine(k, 100), errors: 0, latency: { p99: mine(k, 10) }, rssIdleMb: mine(k, 200), rssPeakMb: mine(k, 300), rssAfterMb: mine(k, 250) }];
  return {
    create: [1, 8, 32].map((concurrency) => ({ concurrency, ...per((k) => ({ p50: mine(k, 10), p99: mine(k, 20), perSecond: 100 / mine(k, 1) })) })),
    get: per((k) => ({ p50: mine(k, 5), p99: mine(k, 9) })),
    poll: per(poll),
    e2e: per((k) => [{ tasks: 200, totalMs: mine(k, 3000), medianObservedMinusTaskMs: mine(k, 500), completed: 200 }]),
    kill: per((k) => ({ tasks: 20, seconds: 5, waitS: 60, lastCompletionS: 15, ...(k === 'ours' ? kill : { completed: 0, reexecutions: 0 }) })),
    killTuned: per(() => ({ completed: 20, reexecutions: 20, lastCompletionS: 30 })),
    tunedRedeliverySeconds: 10,
  };
}

const row = (rows: unknown[][], start: string) => {
  const found = rows.find((r) => String(r[0]).startsWith(start));
  if (!found) throw new Error(`no row "${start}"`);
  return found;
};
const RATIO_FSYNC = 5;
const MET = 7;

describe('bench:peer table', () => {
  it('has every row the issue asks for, with the ratio taken against the fsync column', () => {
    const rows = peerRows(run(2));
    for (const c of [1, 8, 32]) for (const p of ['p50', 'p99']) expect(row(rows, `create ${p}, c=${c} (ms)`)[RATIO_FSYNC]).toBe(2);
    for (const name of ['create throughput, c=32', 'tasks/get p50', 'tasks/get p99', 'polls/s answered: 1000 live tasks', 'end to end: 200 × 1 s', 'total RSS, idle', 'total RSS, peak', 'total RSS, after', 'worker SIGKILL', '— re-executions']) row(rows, name);
    expect(row(rows, 'create throughput, c=32')[RATIO_FSYNC]).toBe(0.5);
  });

  it('judges latency and memory targets as lower-is-better and rates as higher-is-better', () => {
    const slower = peerRows(run(2));
    expect(row(slower, 'create p50, c=1')[MET]).toBe('no');
    expect(row(slower, 'create throughput, c=32')[MET]).toBe('no');
    expect(row(slower, 'end to end')[MET]).toBe('no');
    expect(row(slower, 'polls/s answered')[MET]).toBe('yes'); // 2× the peer's rate against a target of 1.5×
    const faster = peerRows(run(0.5));
    expect(row(faster, 'create p50, c=1')[MET]).toBe('yes');
    expect(row(faster, 'create throughput, c=32')[MET]).toBe('yes');
    expect(row(faster, 'total RSS, peak')[MET]).toBe('yes');
    expect(row(faster, 'polls/s answered')[MET]).toBe('no'); // half the peer's rate
  });

  it('meets the SIGKILL target only when every task completed and none ran twice', () => {
    expect(row(peerRows(run(1)), 'worker SIGKILL')[MET]).toBe('yes');
    expect(row(peerRows(run(1, { completed: 19, reexecutions: 0 })), 'worker SIGKILL')[MET]).toBe('no');
    expect(row(peerRows(run(1, { completed: 20, reexecutions: 1 })), '— re-executions')[MET]).toBe('no');
  });
});
