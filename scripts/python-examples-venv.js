#!/usr/bin/env node
// A git-ignored Python venv (.venv-examples/) with the pinned Temporal Python SDK that the
// Python example worker (examples/python/) runs on: temporalio 1.35.0.
// Idempotent: when the venv already holds this version nothing is installed.
// `node scripts/python-examples-venv.js` prints the venv's python.
'use strict';
const path = require('node:path');
const { ensureVenv } = require('./clients-venv.js');

const ROOT = path.resolve(__dirname, '..');
const VENV = path.join(ROOT, '.venv-examples');
const PYTHON = path.join(VENV, 'bin', 'python');
const PACKAGES = { temporalio: '1.35.0' };

/** Creates or completes the venv; returns its python. Throws with pip's output when it cannot. */
function ensureExamplesVenv(opts = {}) {
  return ensureVenv(VENV, PACKAGES, opts);
}

module.exports = { ensureExamplesVenv, VENV, PYTHON, PACKAGES };

if (require.main === module) {
  try {
    console.log(ensureExamplesVenv({ log: (m) => console.error(m) }));
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
