/** Jest globalTeardown: stops the run's shared Temporal dev server (by its pid) and removes the run's directory. */
import fs from 'node:fs';
import type { TestTemporal } from './temporal';

export default async function globalTeardown(): Promise<void> {
  const shared = (globalThis as { __mttShared?: TestTemporal }).__mttShared;
  if (shared) await shared.server.stop();
  const runDir = process.env.MTT_RUN_DIR;
  if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
}
