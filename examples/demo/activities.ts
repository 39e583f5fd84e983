/** The demo tools' activities: side effects recorded in a ledger, applied once per idempotency key. */
import { Context } from '@temporalio/activity';
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
  what: string;
  durationMs: number;
}

export async function provisionStep(input: ProvisionStepInput): Promise<void> {
  await recordAttempt(`provision-${input.idempotencyKey}`);
  await workFor(input.durationMs);
  await applyOnce(`provision-${input.idempotencyKey}`, input);
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
  return fs.access(markerFile(key)).then(() => true, () => false);
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

/** Simulated work that heartbeats, so a cancel or a dead worker is noticed quickly. */
async function workFor(ms: number): Promise<void> {
  const ctx = Context.current();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    ctx.heartbeat();
    await ctx.sleep(Math.min(200, end - Date.now()));
  }
}
