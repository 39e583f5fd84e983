/**
 * The generative test's model: generated tool programs (the format of
 * test/fixtures/generated-ops.ts) and schedules of events at random moments, and what the
 * program alone says about the task's end.
 */
import fc from 'fast-check';
import type { GeneratedOp, GeneratedProgram } from '../fixtures/generated-ops';

/** Something done to a running task at `atMs` after it started. */
export type GeneratedEvent =
  | { atMs: number; kind: 'cancel'; revision: '2026-07-28' | '2025-11-25' }
  /** Answers the outstanding questions picked by `pick` (a partial answer when it leaves some out). */
  | { atMs: number; kind: 'answer'; pick: boolean[] }
  /** tasks/update keyed by names the task never asked (`constructor`, `toString`…): not answers. */
  | { atMs: number; kind: 'answerUnasked' }
  /** tasks/update of every outstanding question and tasks/cancel, sent together. */
  | { atMs: number; kind: 'cancelRacingAnswer' }
  | { atMs: number; kind: 'restartServer' }
  | { atMs: number; kind: 'killWorker' }
  /** `mcp.claimed`, as a server sends it once its caller holds the handle (a run not guarded ignores it). */
  | { atMs: number; kind: 'claim' };

export interface GeneratedCase {
  program: GeneratedProgram;
  events: GeneratedEvent[];
  /** Started as a call from a client without Tasks is: guarded, unclaimed past this deadline it ends failed, its steps undone. */
  claimWithinMs?: number;
}

export type EventKind = GeneratedEvent['kind'];

const ms = (max: number) => fc.integer({ min: 0, max });

export type OpKind = GeneratedOp['t'];
export const OP_KINDS: OpKind[] = ['step', 'input', 'inputs', 'scopeTimeout', 'sleep', 'status', 'fail', 'bug'];
export const EVENT_KINDS: EventKind[] = ['cancel', 'answer', 'answerUnasked', 'cancelRacingAnswer', 'restartServer', 'killWorker', 'claim'];

/** The keys of answerUnasked: names every object has, and one nobody asked. */
export const UNASKED_KEYS = ['constructor', 'toString', 'hasOwnProperty', 'never_asked'];

/** Programs with ms-scale timers, of the op kinds not left out; names and keys are made unique afterwards (see `numbered`). */
function opsArbitrary(without: OpKind[]): fc.Arbitrary<GeneratedOp[]> {
  const timeoutMs = fc.option(fc.integer({ min: 20, max: 400 }), { nil: undefined });
  return fc.letrec<{ op: GeneratedOp; ops: GeneratedOp[] }>((tie) => {
    const all: Record<OpKind, { weight: number; arbitrary: fc.Arbitrary<GeneratedOp> }> = {
      step: {
        weight: 6,
        arbitrary: fc.record({
          t: fc.constant('step' as const),
          name: fc.constant(''),
          undo: fc.constantFrom('ok' as const, 'fails' as const),
        }),
      },
      input: {
        weight: 3,
        arbitrary: fc.record({ t: fc.constant('input' as const), key: fc.constant(''), timeoutMs }, { requiredKeys: ['t', 'key'] }),
      },
      inputs: {
        weight: 2,
        arbitrary: fc.record(
          { t: fc.constant('inputs' as const), keys: fc.array(fc.constant(''), { minLength: 2, maxLength: 3 }), timeoutMs },
          { requiredKeys: ['t', 'keys'] },
        ),
      },
      scopeTimeout: {
        weight: 2,
        arbitrary: fc.record({
          t: fc.constant('scopeTimeout' as const),
          ms: fc.integer({ min: 20, max: 500 }),
          ops: tie('ops') as fc.Arbitrary<GeneratedOp[]>,
        }),
      },
      sleep: { weight: 2, arbitrary: fc.record({ t: fc.constant('sleep' as const), ms: ms(200) }) },
      status: {
        weight: 1,
        arbitrary: fc.record({ t: fc.constant('status' as const), message: fc.constantFrom('halfway', 'almost done') }),
      },
      fail: { weight: 1, arbitrary: fc.record({ t: fc.constant('fail' as const), message: fc.constant('the tool gave up') }) },
      bug: { weight: 1, arbitrary: fc.record({ t: fc.constant('bug' as const), message: fc.constant('a bug in the tool') }) },
    };
    const kept = OP_KINDS.filter((k) => !without.includes(k)).map((k) => all[k]);
    return {
      op: fc.oneof({ depthSize: 'small', withCrossShrink: true }, ...kept),
      ops: fc.array(tie('op') as fc.Arbitrary<GeneratedOp>, { maxLength: 5, depthIdentifier: 'ops' }),
    };
  }).ops;
}

export function programArbitrary(without: OpKind[] = []): fc.Arbitrary<GeneratedProgram> {
  return fc
    .record(
      { ops: opsArbitrary(without), turns: fc.option(fc.integer({ min: 2, max: 3 }), { nil: undefined, freq: 3 }) },
      { requiredKeys: ['ops'] },
    )
    .map(numbered);
}

/** Step names s1, s2… and input keys k1, k2… in program order: both must be unique in a task. */
function numbered(program: GeneratedProgram): GeneratedProgram {
  let steps = 0;
  let keys = 0;
  const renumber = (ops: GeneratedOp[]): GeneratedOp[] =>
    ops.map((op) => {
      if (op.t === 'step') return { ...op, name: `s${++steps}` };
      if (op.t === 'input') return { ...op, key: `k${++keys}` };
      if (op.t === 'inputs') return { ...op, keys: op.keys.map(() => `k${++keys}`) };
      if (op.t === 'scopeTimeout') return { ...op, ops: renumber(op.ops) };
      return op;
    });
  const out: GeneratedProgram = { ops: renumber(program.ops) };
  return program.turns === undefined ? out : { ...out, turns: program.turns };
}

export function eventArbitrary(kinds: EventKind[]): fc.Arbitrary<GeneratedEvent> {
  if (kinds.length === 0) return fc.constant({ atMs: 0, kind: 'answer', pick: [true] });
  const atMs = ms(1_000);
  const all: Record<EventKind, fc.Arbitrary<GeneratedEvent>> = {
    cancel: fc.record({
      atMs,
      kind: fc.constant('cancel' as const),
      revision: fc.constantFrom('2026-07-28' as const, '2025-11-25' as const),
    }),
    answer: fc.record({ atMs, kind: fc.constant('answer' as const), pick: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }) }),
    answerUnasked: fc.record({ atMs, kind: fc.constant('answerUnasked' as const) }),
    cancelRacingAnswer: fc.record({ atMs, kind: fc.constant('cancelRacingAnswer' as const) }),
    restartServer: fc.record({ atMs, kind: fc.constant('restartServer' as const) }),
    killWorker: fc.record({ atMs, kind: fc.constant('killWorker' as const) }),
    claim: fc.record({ atMs, kind: fc.constant('claim' as const) }),
  };
  return fc.oneof(...kinds.map((k) => all[k]));
}

/** Cases whose events are of `kinds`, and whose programs and events leave out `without`. */
export function caseArbitrary(kinds: EventKind[], without: Array<OpKind | EventKind> = []): fc.Arbitrary<GeneratedCase> {
  const events = kinds.filter((k) => !without.includes(k));
  const ops = without.filter((k): k is OpKind => (OP_KINDS as string[]).includes(k));
  // with claims in the schedule, half the runs are guarded; two thirds of those are claimed (their only
  // claim, between the start and one and a half deadlines), the others never are
  const guard = events.includes('claim')
    ? fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.record({
            withinMs: fc.integer({ min: 100, max: 1_000 }),
            claimAtPercent: fc.option(fc.integer({ min: 0, max: 150 }), { nil: undefined, freq: 3 }),
          }),
        },
      )
    : fc.constant(undefined);
  return fc
    .record({ program: programArbitrary(ops), events: fc.array(eventArbitrary(events), { maxLength: 4 }), guard })
    .map(({ program, events: es, guard: g }) => {
      if (!g) return { program, events: [...es].sort((a, b) => a.atMs - b.atMs) };
      const claim: GeneratedEvent[] =
        g.claimAtPercent === undefined ? [] : [{ atMs: Math.round((g.claimAtPercent / 100) * g.withinMs), kind: 'claim' }];
      const schedule = [...es.filter((e) => e.kind !== 'claim'), ...claim].sort((a, b) => a.atMs - b.atMs);
      return { program, events: schedule, claimWithinMs: g.withinMs };
    });
}

/** What the program alone decides, when nothing racy is in it: its end with every question answered. */
export type ModelEnd = 'completed' | 'failed' | 'stuck';

/**
 * The end the program must reach when no cancel is sent and no timer can race it (no input
 * timeout, no scope timeout): the first `fail` or `bug` on its path ends it, else it completes.
 * Undefined when timing decides. (Worker kills and server restarts change no end; a guarded run
 * ends so only once claimed in time, which the history tells: invariants.ts.)
 */
export function modelEnd(c: GeneratedCase): ModelEnd | undefined {
  if (c.events.some((e) => e.kind === 'cancel' || e.kind === 'cancelRacingAnswer')) return undefined;
  if (hasTimeout(c.program.ops)) return undefined;
  const first = firstEnding(c.program.ops);
  return first === 'fail' ? 'failed' : first === 'bug' ? 'stuck' : 'completed';
}

function hasTimeout(ops: GeneratedOp[]): boolean {
  return ops.some((op) => op.t === 'scopeTimeout' || ((op.t === 'input' || op.t === 'inputs') && op.timeoutMs !== undefined));
}

function firstEnding(ops: GeneratedOp[]): 'fail' | 'bug' | undefined {
  for (const op of ops) {
    if (op.t === 'fail' || op.t === 'bug') return op.t;
    if (op.t === 'scopeTimeout') {
      const inner = firstEnding(op.ops);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** The names of the program's steps whose undo succeeds. */
export function undoableSteps(ops: GeneratedOp[]): string[] {
  return ops.flatMap((op) => (op.t === 'step' && op.undo === 'ok' ? [op.name] : op.t === 'scopeTimeout' ? undoableSteps(op.ops) : []));
}

/** Whether the program has a bug anywhere (a task may then read stuck). */
export function mayBeStuck(program: GeneratedProgram): boolean {
  const walk = (ops: GeneratedOp[]): boolean => ops.some((op) => op.t === 'bug' || (op.t === 'scopeTimeout' && walk(op.ops)));
  return walk(program.ops);
}
