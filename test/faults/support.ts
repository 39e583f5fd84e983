import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call } from '../support/mcp';
import { freePort } from '../support/ports';
import { startTestTemporal, TestTemporal } from '../support/temporal';

export function ledgerDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));
}

/** Lines per key in a ledger log (attempts.log or effects.log). */
export function ledgerCounts(dir: string, log: 'attempts.log' | 'effects.log'): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(dir, log);
  if (!fs.existsSync(file)) return counts;
  for (const key of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

export async function createTask(url: string, name: string, args: Record<string, unknown>): Promise<string> {
  const created = await call(url, 'tools/call', { name, arguments: args });
  if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  return created.taskId;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Prints the counts the closing note reports. */
export function report(caseName: string, counts: Record<string, number>): void {
  console.log(`[faults] ${caseName}: ${Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ')}`);
}

/** A dev server on a fixed port and SQLite file, so it can be SIGKILLed and started again as the same server. */
export async function restartableTemporal() {
  const port = await freePort();
  let current: TestTemporal | undefined = await startTestTemporal(undefined, port);
  const { dbFile, address } = current;
  return {
    address,
    /** The running server, if any (for the afterAll stop). */
    current: () => current,
    async kill(): Promise<void> {
      const killed = current!;
      current = undefined;
      process.kill(killed.server.pid, 'SIGKILL');
      await killed.stop().catch(() => undefined);
    },
    async restart(): Promise<void> {
      current = await startTestTemporal(dbFile, port);
    },
  };
}
