/**
 * The demo activities' effects ledger (examples/demo/activities.ts, MCP_TASKS_LEDGER_DIR): a
 * marker file per applied effect (named after its idempotency key), and the logs attempts.log
 * (a line per activity attempt) and effects.log (a line per effect applied).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type LedgerLog = 'attempts.log' | 'effects.log';

/** A fresh ledger folder (pass it to a worker as MCP_TASKS_LEDGER_DIR). */
export function ledgerDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));
}

/** Lines per key in a ledger log. */
export function ledgerCounts(dir: string, log: LedgerLog): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(dir, log);
  if (!fs.existsSync(file)) return counts;
  for (const key of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The marker files of one task's effects, sorted. */
export function ledgerFiles(dir: string, taskId: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.includes(taskId))
    .sort();
}

/**
 * The steps of one task that have a `kind` marker (provision, deprovision), as the rest of the
 * marker's name after `<kind>-<taskId>` (e.g. `_step-1.json`).
 */
export function ledgerMarkers(dir: string, kind: string, taskId: string): Set<string> {
  const prefix = `${kind}-${taskId}`;
  return new Set(
    fs
      .readdirSync(dir)
      .filter((f) => f.startsWith(prefix))
      .map((f) => f.slice(prefix.length)),
  );
}
