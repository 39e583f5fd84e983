/**
 * Jest globalSetup: one real Temporal dev server for the whole run (the in-process tier's
 * stacks share it, each on its own task queue), and a directory for this run's workflow bundle.
 * Their places reach the test files through environment variables (test files see a copy of
 * this process's environment); globalTeardown stops the server by its pid.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestTemporal } from './temporal';

export const SHARED_TEMPORAL_ENV = 'MTT_SHARED_TEMPORAL';

export default async function globalSetup(): Promise<void> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-run-'));
  process.env.MTT_RUN_DIR = runDir;
  if (process.env.MTT_NO_SHARED_TEMPORAL) return;
  const temporal = await startTestTemporal(path.join(runDir, 'temporal.db'));
  // the client is not needed here: the files connect their own
  await temporal.client.connection.close();
  (globalThis as { __mttShared?: unknown }).__mttShared = temporal;
  process.env[SHARED_TEMPORAL_ENV] = JSON.stringify({
    address: temporal.address,
    uiUrl: temporal.server.uiUrl,
    pid: temporal.server.pid,
    dbFile: temporal.dbFile,
  });
}
