#!/usr/bin/env node
// A git-ignored Python venv (.venv-examples/) with the pinned Temporal Python SDK that the
// Python example worker (examples/python/) runs on: temporalio 1.35.0.
// Idempotent: when the venv already holds this version nothing is installed.
// `node build/scripts/python-examples-venv.js` prints the venv's python.
import path from 'node:path';
import { ROOT } from '../test/support/paths';
import { ensureVenv, type VenvOptions } from './clients-venv';

export const VENV = path.join(ROOT, '.venv-examples');
export const PYTHON = path.join(VENV, 'bin', 'python');
export const PACKAGES = { temporalio: '1.35.0' };

/** Creates or completes the venv; returns its python. Throws with pip's output when it cannot. */
export function ensureExamplesVenv(opts: VenvOptions = {}): string {
  return ensureVenv(VENV, PACKAGES, opts);
}

if (require.main === module) {
  try {
    console.log(ensureExamplesVenv({ log: (m) => console.error(m) }));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
