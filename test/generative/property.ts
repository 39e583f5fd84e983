/**
 * The generative property: batches of generated cases run concurrently on a real stack; after
 * each case the invariants are checked. A broken invariant fails the batch, and fast-check
 * shrinks it (fewer cases, smaller programs, fewer events) and prints the seed, the path and
 * the smallest case; the error names what differed and where the task's Temporal history was
 * written (test-artifacts/generative/: the histories of every run, newest first).
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/paths';
import { chainHistories, readAll, readLedger, violations } from './invariants';
import { caseArbitrary, EVENT_KINDS, type EventKind, type GeneratedCase, OP_KINDS, type OpKind } from './model';
import { type CaseEnv, isStuck, runCase } from './runner';

export interface Budget {
  cases: number;
  seed?: number;
  /** Cases run at the same time (one batch). */
  concurrency: number;
  /** The whole run's time (shrinking included): a run that has not done its cases by then fails, with the smallest failure so far if any. */
  timeLimitMs: number;
  kinds: EventKind[];
  /**
   * Op and event kinds never generated (MTT_GEN_WITHOUT, `--without`): to look past a failure
   * class already found while it is being fixed. Empty by default; CI never sets it.
   */
  without: Array<OpKind | EventKind>;
}

/** The generative test's settings from its environment variables (scripts/generative.ts sets them). */
export function budgetFromEnv(defaults: { cases: number; concurrency: number }): Omit<Budget, 'kinds' | 'timeLimitMs'> {
  const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const without = (process.env.MTT_GEN_WITHOUT ?? '').split(',').filter(Boolean);
  const unknown = without.filter((k) => !(OP_KINDS as string[]).includes(k) && !(EVENT_KINDS as string[]).includes(k));
  if (unknown.length)
    throw new Error(`MTT_GEN_WITHOUT: unknown kind(s) ${unknown.join(', ')}; known: ${[...OP_KINDS, ...EVENT_KINDS].join(', ')}`);
  return {
    cases: num('MTT_GEN_CASES') ?? defaults.cases,
    seed: num('MTT_GEN_SEED'),
    concurrency: num('MTT_GEN_CONCURRENCY') ?? defaults.concurrency,
    without: without as Budget['without'],
  };
}

/** Ends seen, for the closing line (how many cases ended which way). */
export type Tally = Map<string, number>;

export async function checkGenerated(env: CaseEnv, budget: Budget, tally: Tally = new Map()): Promise<Tally> {
  const batch = fc.array(caseArbitrary(budget.kinds, budget.without), { minLength: 1, maxLength: budget.concurrency });
  const property = fc.asyncProperty(batch, async (cases) => {
    const results = await Promise.all(cases.map((c) => checkCase(env, c, tally)));
    const failed = results.filter((r) => r !== undefined);
    if (failed.length) throw new Error(failed.join('\n\n'));
  });
  const runs = Math.max(1, Math.ceil((2 * budget.cases) / (budget.concurrency + 1)));
  await fc.assert(property, {
    numRuns: runs,
    ...(budget.seed === undefined ? {} : { seed: budget.seed }),
    interruptAfterTimeLimit: budget.timeLimitMs,
    markInterruptAsFailure: true,
  });
  return tally;
}

/** Runs a case and checks it; a broken invariant comes back as the report, with the history written. */
async function checkCase(env: CaseEnv, c: GeneratedCase, tally: Tally): Promise<string | undefined> {
  const started = Date.now();
  const ran = await runCase(env, c);
  const readings = await readAll(env, ran, c.claimWithinMs);
  const broken = violations(c, ran, readings, readLedger(env.ledgerDir, ran.taskId));
  const unclaimed = readings.guard && /nobody claimed the task/.test(JSON.stringify(readings.rev2026));
  const end = ran.reading === 'stuck' || isStuck(readings.rev2026) ? 'stuck' : unclaimed ? 'unclaimed' : readings.rev2026.status;
  tally.set(end, (tally.get(end) ?? 0) + 1);
  if (process.env.MTT_GEN_VERBOSE)
    process.stderr.write(`[generative] ${ran.taskId} ${end} in ${Date.now() - started} ms: ${JSON.stringify(c)}\n`);
  // a stuck task retries for ever: end it (Temporal's terminate, not the test's subject)
  if (readings.temporal === 'RUNNING')
    await env.client.workflow
      .getHandle(ran.taskId)
      .terminate('generative test: case checked')
      .catch(() => undefined);
  if (broken.length === 0) return undefined;
  const historyFile = await writeHistory(env, ran.taskId, c, readings);
  return [
    `task ${ran.taskId}:`,
    ...broken.map((b) => `  - ${b}`),
    `  program: ${JSON.stringify(c.program)}`,
    `  events: ${JSON.stringify(c.events)}${c.claimWithinMs === undefined ? '' : `, claimWithinMs ${c.claimWithinMs}`}`,
    `  tasks/get 2026: ${JSON.stringify(readings.rev2026)}`,
    `  history: ${historyFile}`,
  ].join('\n');
}

async function writeHistory(env: CaseEnv, taskId: string, c: GeneratedCase, readings: unknown): Promise<string> {
  const dir = path.join(ROOT, 'test-artifacts', 'generative');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${taskId}.json`);
  const histories = await chainHistories(env, taskId).catch((err: Error) => ({ error: err.message }));
  fs.writeFileSync(file, JSON.stringify({ case: c, readings, histories }, readable, 1));
  return path.relative(ROOT, file);
}

/** "286 cases: cancelled=82 completed=123 failed=81" (batches vary in size: the count is what ran). */
/**
 * History events as plain JSON: 64-bit numbers (Long) as decimal strings, payload bytes as their
 * text. (The SDK's historyToJSON refuses the protobuf types of jest's module registry.)
 */
function readable(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value && typeof value === 'object' && 'low' in value && 'high' in value && 'unsigned' in value) return String(value);
  return value;
}

export function formatTally(tally: Tally): string {
  const total = [...tally.values()].reduce((a, b) => a + b, 0);
  return `${total} cases: ${[...tally]
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
}
