/**
 * The demo tools' activities: side effects recorded in a ledger, applied once per idempotency
 * key; long work reports its progress, which the task's statusMessage shows while it runs.
 */
import { Context } from '@temporalio/activity';
import { heartbeating, MAX_RESULT_BYTES, reportProgress } from 'mcp-temporal-tasks/activity';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The provisioning "side effects" land in a ledger folder: a marker file per idempotency key,
 * created exclusively, guards the effect, so a retried or re-run activity applies it once.
 * attempts.log records every execution, effects.log every applied effect.
 */
function ledgerDir(): string {
  return process.env.MCP_TASKS_LEDGER_DIR ?? path.resolve('.data', 'ledger');
}

export interface ProvisionStepInput {
  idempotencyKey: string;
  environment: string;
  step: number;
  /** Steps in all (absent in tasks scheduled by older builds). */
  steps?: number;
  what: string;
  durationMs: number;
}

/**
 * One provisioning step. Its key comes from the workflow (`<taskId>:step-<n>`), not from
 * idempotencyKey(): the step's undo, another activity, must name the same effect.
 */
export async function provisionStep(input: ProvisionStepInput): Promise<void> {
  await recordAttempt(`provision-${input.idempotencyKey}`);
  // the workflow's own message for the step, and how far it got: "step 2/3: provisioning database for dev: 40%"
  const step = input.steps ? `${input.step}/${input.steps}` : String(input.step);
  await workFor(input.durationMs, `step ${step}: provisioning ${input.what} for ${input.environment}`);
  await applyOnce(`provision-${input.idempotencyKey}`, input);
}

export type BuiltReport = { csv: string } | { oversizedBytes: number };

const ROWS_PER_CHUNK = 1_000;

/**
 * Builds export_report's CSV, reporting "exporting rows (4,000 of 10,000)" as it goes. A report
 * too large for a Temporal payload comes back as its size, not as a result Temporal would
 * refuse: the workflow fails the task with the runtime's payload-limit error.
 */
export async function buildReport({ rows, msPerChunk = 0 }: { rows: number; msPerChunk?: number }): Promise<BuiltReport> {
  return heartbeating(async (signal) => {
    const lines = ['id,name,amount'];
    for (let from = 1; from <= rows; from += ROWS_PER_CHUNK) {
      signal.throwIfAborted(); // a cancelled task stops building
      const to = Math.min(rows, from + ROWS_PER_CHUNK - 1);
      for (let i = from; i <= to; i++) lines.push(`${i},item-${i},${(i * 7) % 1000}.00`);
      reportProgress('exporting rows', { done: to, total: rows });
      if (msPerChunk > 0) await Context.current().sleep(msPerChunk);
      else await new Promise((r) => setImmediate(r)); // lets the heartbeat timer run
    }
    const csv = lines.join('\n');
    // measured as the runtime measures a result: the CallToolResult's JSON
    const bytes = Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: csv }] }));
    return bytes > MAX_RESULT_BYTES ? { oversizedBytes: bytes } : { csv };
  });
}

export interface DeprovisionStepInput {
  idempotencyKey: string;
  environment: string;
  step: number;
}

/** Undoes a step if it took effect; a no-op for one that never did (its undo may run anyway). */
export async function deprovisionStep(input: DeprovisionStepInput): Promise<void> {
  await recordAttempt(`deprovision-${input.idempotencyKey}`);
  if (!(await applied(`provision-${input.idempotencyKey}`))) return;
  await applyOnce(`deprovision-${input.idempotencyKey}`, input);
}

const markerFile = (key: string) => path.join(ledgerDir(), `${key.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);

async function applied(key: string): Promise<boolean> {
  return fs.access(markerFile(key)).then(
    () => true,
    () => false,
  );
}

async function applyOnce(key: string, record: object): Promise<void> {
  const dir = ledgerDir();
  await fs.mkdir(dir, { recursive: true });
  const file = markerFile(key);
  try {
    await fs.writeFile(file, JSON.stringify({ ...record, at: new Date().toISOString() }), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return; // already applied
    throw err;
  }
  await fs.appendFile(path.join(dir, 'effects.log'), `${key}\n`);
}

async function recordAttempt(key: string): Promise<void> {
  await fs.mkdir(ledgerDir(), { recursive: true });
  await fs.appendFile(path.join(ledgerDir(), 'attempts.log'), `${key}\n`);
}

/** Simulated work that reports its progress (a heartbeat), so a cancel or a dead worker is noticed quickly. */
async function workFor(ms: number, what: string): Promise<void> {
  const ctx = Context.current();
  const start = Date.now();
  const end = start + ms;
  while (Date.now() < end) {
    reportProgress(`${what}: ${Math.floor(((Date.now() - start) / ms) * 100)}%`);
    await ctx.sleep(Math.min(200, end - Date.now()));
  }
}
