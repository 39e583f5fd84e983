/**
 * The generative test's own parts, without Temporal: the generator makes programs the tool
 * accepts, with unique step names and input keys; the invariants flag what they must (and
 * allow 2025-11-25's rule); the runner script refuses bad flags with its usage.
 */
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { generatedProgramSchema, type GeneratedOp } from '../fixtures/generated-ops';
import type { LedgerLine } from '../fixtures/generated-activities';
import { type GuardReading, type Readings, violations } from './invariants';
import { caseArbitrary, EVENT_KINDS, type GeneratedCase, modelEnd, programArbitrary } from './model';
import type { Ran } from './runner';

// the script as npm runs it, compiled (`npm run build`): it is spawned below
const SCRIPT = path.resolve(__dirname, '..', '..', 'build', 'scripts', 'generative.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled script, as npm runs it
const { parseArgs, envOf } = require(SCRIPT) as {
  parseArgs(argv: string[]): Record<string, unknown>;
  envOf(opts: unknown): Record<string, string>;
};

function names(ops: GeneratedOp[]): string[] {
  return ops.flatMap((op) =>
    op.t === 'step' ? [op.name] : op.t === 'input' ? [op.key] : op.t === 'inputs' ? op.keys : op.t === 'scopeTimeout' ? names(op.ops) : [],
  );
}

test('generated programs are valid tool arguments, with unique step names and input keys', () => {
  fc.assert(
    fc.property(programArbitrary(), (program) => {
      expect(generatedProgramSchema.safeParse(program).success).toBe(true);
      const all = names(program.ops);
      expect(new Set(all).size).toBe(all.length);
    }),
    { numRuns: 300 },
  );
});

test('--without leaves those kinds out of programs and schedules', () => {
  fc.assert(
    fc.property(caseArbitrary(EVENT_KINDS, ['bug', 'scopeTimeout', 'killWorker']), (c) => {
      expect(JSON.stringify(c.program)).not.toMatch(/"t":"(bug|scopeTimeout)"/);
      expect(c.events.map((e) => e.kind)).not.toContain('killWorker');
    }),
    { numRuns: 200 },
  );
});

const plain: GeneratedCase = { program: { ops: [{ t: 'step', name: 's1', undo: 'ok' }] }, events: [] };
const cancelled: GeneratedCase = { ...plain, events: [{ atMs: 10, kind: 'cancel', revision: '2026-07-28' }] };
const ran = (c: GeneratedCase, reading: Ran['reading'] = 'terminal'): Ran => ({
  taskId: 't',
  sent: { cancel: c.events.filter((e) => e.kind === 'cancel').map(() => '2026-07-28' as const) },
  reading,
});
const readings = (temporal: string, rev2026: string, rev2025 = rev2026, mcpTaskStatus: string | undefined = rev2026): Readings => ({
  temporal,
  rev2026: { status: rev2026 },
  rev2025: { status: rev2025 },
  mcpTaskStatus,
});
const apply = (name: string): LedgerLine => ({ taskId: 't', name, kind: 'apply' });
const undo = (name: string): LedgerLine => ({ taskId: 't', name, kind: 'undo' });

test('the invariants hold for a task every reader ends the same way', () => {
  expect(violations(plain, ran(plain), readings('COMPLETED', 'completed'), [apply('s1')])).toEqual([]);
  expect(violations(cancelled, ran(cancelled), readings('CANCELLED', 'cancelled'), [apply('s1'), undo('s1')])).toEqual([]);
  // 2025-11-25: cancelled from the tasks/cancel on, whatever the undos did
  expect(violations(cancelled, ran(cancelled), readings('FAILED', 'failed', 'cancelled'), [apply('s1')])).toEqual([]);
});

test('the invariants flag readers that disagree, a cancel nobody asked for, undos that do not match the end, effects twice', () => {
  const failing: GeneratedCase = { program: { ops: [{ t: 'fail', message: 'x' }] }, events: [] };
  expect(violations(failing, ran(failing), readings('FAILED', 'failed', 'failed', 'cancelled'), [])).toEqual([
    expect.stringMatching(/readers disagree.*McpTaskStatus cancelled.*Temporal FAILED/),
  ]);
  // TERMINATED leaves McpTaskStatus at its last running value; an end value there disagrees
  expect(violations(plain, ran(plain), readings('TERMINATED', 'failed', 'failed', 'working'), [])).toEqual([
    expect.stringMatching(/must end completed/),
  ]);
  expect(violations(plain, ran(plain), readings('TERMINATED', 'failed', 'failed', 'completed'), [])).toEqual([
    expect.stringMatching(/readers disagree/),
    expect.stringMatching(/must end completed/),
  ]);
  expect(violations(plain, ran(plain), readings('COMPLETED', 'completed', 'cancelled'), [apply('s1')])).toEqual([
    expect.stringMatching(/readers disagree/),
  ]);
  const scoped: GeneratedCase = {
    program: { ops: [{ t: 'scopeTimeout', ms: 20, ops: [{ t: 'step', name: 's1', undo: 'ok' }] }] },
    events: [],
  };
  expect(violations(scoped, ran(scoped), readings('CANCELLED', 'cancelled'), [apply('s1'), undo('s1')])).toEqual([
    expect.stringMatching(/nobody requested a cancel/),
  ]);
  expect(violations(cancelled, ran(cancelled), readings('CANCELLED', 'cancelled'), [apply('s1')])).toEqual([
    expect.stringMatching(/not undone: s1/),
  ]);
  expect(violations(plain, ran(plain), readings('COMPLETED', 'completed'), [apply('s1'), undo('s1')])).toEqual([
    expect.stringMatching(/undos ran: s1/),
  ]);
  expect(violations(plain, ran(plain), readings('COMPLETED', 'completed'), [apply('s1'), apply('s1')])).toEqual([
    expect.stringMatching(/more than once: apply s1 ×2/),
  ]);
  const unasked = (reply: string): Ran => ({ ...ran(plain), sent: { cancel: [], unasked: reply } });
  expect(
    violations(plain, unasked('accepted'), { ...readings('COMPLETED', 'completed'), signalledKeys: ['k1', 'constructor'] }, []),
  ).toEqual([expect.stringMatching(/never asked reached the workflow as answers: constructor/)]);
  expect(violations(plain, unasked('refused -32603: boom'), { ...readings('COMPLETED', 'completed'), signalledKeys: ['k1'] }, [])).toEqual([
    expect.stringMatching(/failed inside the server: refused -32603/),
  ]);
  expect(
    violations(plain, unasked('refused -32602: not outstanding'), { ...readings('COMPLETED', 'completed'), signalledKeys: ['k1'] }, []),
  ).toEqual([]);
  expect(violations(plain, ran(plain, 'timeout'), readings('RUNNING', 'working'), [])).toEqual([
    expect.stringMatching(/neither ended nor read stuck/),
    expect.stringMatching(/must end completed/),
  ]);
  expect(
    violations(
      plain,
      ran(plain, 'stuck'),
      { ...readings('RUNNING', 'working'), rev2026: { status: 'working', statusMessage: 'stuck: …' } },
      [],
    ),
  ).toEqual([expect.stringMatching(/stuck without a bug/), expect.stringMatching(/must end completed .*, it reads stuck/)]);
});

test("the guard's invariants: unclaimed only without a claim by the deadline, then failed and undone; a claim in time leaves the program's end", () => {
  const guarded: GeneratedCase = { ...plain, claimWithinMs: 1_000 };
  const guard = (g: Partial<GuardReading>): GuardReading => ({ deadlineMs: 10_000, closedMs: 12_000, ...g });
  const unclaimed = (g: Partial<GuardReading>): Readings => ({
    ...readings('FAILED', 'failed'),
    rev2026: {
      status: 'failed',
      error: { message: 'The task failed: nobody claimed the task within 1000ms (its caller never got the handle): steps undone' },
    },
    guard: guard(g),
  });
  expect(violations(guarded, ran(guarded), unclaimed({}), [apply('s1'), undo('s1')])).toEqual([]);
  expect(violations(guarded, ran(guarded), unclaimed({ claimedMs: 11_000 }), [apply('s1'), undo('s1')])).toEqual([]); // claimed too late
  expect(violations(guarded, ran(guarded), unclaimed({ claimedMs: 9_000 }), [apply('s1'), undo('s1')])).toEqual([
    expect.stringMatching(/must end completed .*, it reads failed/), // claimed in time: the program decides
    expect.stringMatching(/ended unclaimed, but its claim was recorded 1000 ms before the deadline/),
  ]);
  expect(violations(guarded, ran(guarded), unclaimed({}), [apply('s1')])).toEqual([
    expect.stringMatching(/unclaimed, but applied steps were not undone: s1/),
  ]);
  // nobody claimed, and it completed long after the deadline: the guard did not fire
  expect(violations(guarded, ran(guarded), { ...readings('COMPLETED', 'completed'), guard: guard({}) }, [apply('s1')])).toEqual([
    expect.stringMatching(/never claimed nor cancelled, it ended 2000 ms after its deadline, yet it reads completed/),
  ]);
  // a claim recorded after the deadline may reach the workflow task that handles it, and win
  expect(
    violations(guarded, ran(guarded), { ...readings('COMPLETED', 'completed'), guard: guard({ claimedMs: 10_300 }) }, [apply('s1')]),
  ).toEqual([]);
  // it completed before its deadline, or was claimed in time: the program's own end
  expect(
    violations(guarded, ran(guarded), { ...readings('COMPLETED', 'completed'), guard: guard({ closedMs: 9_500 }) }, [apply('s1')]),
  ).toEqual([]);
  expect(
    violations(guarded, ran(guarded), { ...readings('COMPLETED', 'completed'), guard: guard({ claimedMs: 9_000 }) }, [apply('s1')]),
  ).toEqual([]);
  expect(violations(guarded, ran(guarded), { ...readings('FAILED', 'failed'), guard: guard({ claimedMs: 9_000 }) }, [apply('s1')])).toEqual(
    [expect.stringMatching(/must end completed/)],
  );
});

test('guarded cases: half of them when claims are scheduled, none otherwise; a guarded run has at most its own claim', () => {
  const sample = fc.sample(caseArbitrary(EVENT_KINDS), { numRuns: 300, seed: 7 });
  const guarded = sample.filter((c) => c.claimWithinMs !== undefined);
  expect(guarded.length).toBeGreaterThan(100);
  expect(guarded.length).toBeLessThan(200);
  const claims = guarded.map((c) => c.events.filter((e) => e.kind === 'claim'));
  expect(claims.every((cs) => cs.length <= 1)).toBe(true);
  expect(claims.filter((cs) => cs.length === 1).length).toBeGreaterThan(guarded.length / 2);
  expect(fc.sample(caseArbitrary(EVENT_KINDS, ['claim']), { numRuns: 100, seed: 7 }).every((c) => c.claimWithinMs === undefined)).toBe(
    true,
  );
});

test('the model: the program alone decides the end only without cancels and timers', () => {
  expect(modelEnd(plain)).toBe('completed');
  expect(
    modelEnd({
      program: {
        ops: [
          { t: 'fail', message: 'x' },
          { t: 'bug', message: 'y' },
        ],
      },
      events: [],
    }),
  ).toBe('failed');
  expect(modelEnd({ program: { ops: [{ t: 'bug', message: 'y' }] }, events: [{ atMs: 1, kind: 'killWorker' }] })).toBe('stuck');
  expect(modelEnd(cancelled)).toBeUndefined();
  expect(modelEnd({ program: { ops: [{ t: 'input', key: 'k1', timeoutMs: 50 }] }, events: [] })).toBeUndefined();
});

test("npm run test:generative: flags become the test files' settings", () => {
  expect(envOf(parseArgs(['--cases', '200', '--seed', '-42', '--without', 'bug,scopeTimeout']))).toEqual({
    MTT_GEN_CASES: '200',
    MTT_GEN_PROCESS_CASES: '20',
    MTT_GEN_CONCURRENCY: '12',
    MTT_GEN_SEED: '-42',
    MTT_GEN_WITHOUT: 'bug,scopeTimeout',
  });
});

test.each([
  [['--cases', 'ten'], '--cases needs an integer, got "ten"'],
  [['--cases', '0'], '--cases must be between 1 and 1000000, got 0'],
  [['--seed'], '--seed needs an integer, got nothing'],
  [['--concurrency', '64'], '--concurrency must be between 1 and 32, got 64'],
  [['--without', 'bug;x'], '--without needs kinds separated by commas, got "bug;x"'],
  [['--fast'], 'unknown argument "--fast"'],
])('npm run test:generative %j: a usage error, exit code 2', (args, message) => {
  const { status, stderr } = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  expect(status).toBe(2);
  expect(stderr).toContain(`test:generative: ${message}`);
  expect(stderr).toContain('usage: npm run test:generative --');
});
