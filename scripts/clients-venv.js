#!/usr/bin/env node
// A git-ignored Python venv (.venv-clients/) with the real Python MCP clients the tests drive:
// FastMCP 4.1.4 + fastmcp-tasks 4.1.4 (the newest fastmcp that installs its tasks extra).
// Idempotent: when the venv already holds these versions nothing is installed.
// `node scripts/clients-venv.js` prints the venv's python.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const VENV = path.join(ROOT, '.venv-clients');
const PYTHON = path.join(VENV, 'bin', 'python');
const PACKAGES = { fastmcp: '4.1.4', 'fastmcp-tasks': '4.1.4' };

function installedVersions() {
  if (!fs.existsSync(PYTHON)) return undefined;
  const code = `import json, importlib.metadata as m\nout = {}\nfor n in ${JSON.stringify(Object.keys(PACKAGES))}:\n    try: out[n] = m.version(n)\n    except m.PackageNotFoundError: out[n] = None\nprint(json.dumps(out))`;
  const r = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  try {
    return JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
}

const ready = () => {
  const v = installedVersions();
  return v !== undefined && Object.entries(PACKAGES).every(([name, version]) => v[name] === version);
};

/** Creates or completes the venv; returns its python. Throws with pip's output when it cannot. */
function ensureClientsVenv({ log = () => {} } = {}) {
  if (ready()) return PYTHON;
  const python = process.env.PYTHON ?? 'python3';
  if (!fs.existsSync(PYTHON)) {
    log(`creating ${VENV} with ${python}`);
    const r = spawnSync(python, ['-m', 'venv', VENV], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`could not create the clients venv with ${python} (Python >= 3.10 with venv is needed):\n${r.stderr || r.error}`);
  }
  const specs = Object.entries(PACKAGES).map(([name, version]) => `${name}==${version}`);
  log(`pip install ${specs.join(' ')}`);
  const r = spawnSync(PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...specs], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0 || !ready()) {
    throw new Error(
      `could not install ${specs.join(' ')} from PyPI into ${VENV} (is PyPI reachable?):\n` +
      `${(r.stdout ?? '').slice(-4000)}${(r.stderr ?? '').slice(-4000)}${r.error ? String(r.error) : ''}`,
    );
  }
  return PYTHON;
}

module.exports = { ensureClientsVenv, VENV, PYTHON, PACKAGES };

if (require.main === module) {
  try {
    console.log(ensureClientsVenv({ log: (m) => console.error(m) }));
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
