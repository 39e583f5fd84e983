#!/usr/bin/env node
// A git-ignored Python venv (.venv-clients/) with the real Python MCP clients the tests drive:
// FastMCP 4.1.4 + fastmcp-tasks 4.1.4 (the newest fastmcp that installs its tasks extra).
// Idempotent: when the venv already holds these versions nothing is installed.
// `node build/scripts/clients-venv.js` prints the venv's python.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../test/support/paths';

type Packages = Record<string, string>;

export const VENV = path.join(ROOT, '.venv-clients');
export const PYTHON = path.join(VENV, 'bin', 'python');
export const PACKAGES: Packages = { fastmcp: '4.1.4', 'fastmcp-tasks': '4.1.4' };

export interface VenvOptions {
  log?: (message: string) => void;
}

function installedVersions(python: string, packages: Packages): Record<string, string | null> | undefined {
  if (!fs.existsSync(python)) return undefined;
  const code = `import json, importlib.metadata as m\nout = {}\nfor n in ${JSON.stringify(Object.keys(packages))}:\n    try: out[n] = m.version(n)\n    except m.PackageNotFoundError: out[n] = None\nprint(json.dumps(out))`;
  const r = spawnSync(python, ['-c', code], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  try {
    return JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
}

/**
 * Creates or completes a venv at `venv` holding exactly these pinned `packages`; returns its
 * python. Idempotent (nothing is installed when the versions are there). Throws with pip's output.
 */
export function ensureVenv(venv: string, packages: Packages, { log = () => {} }: VenvOptions = {}): string {
  const venvPython = path.join(venv, 'bin', 'python');
  const ready = () => {
    const v = installedVersions(venvPython, packages);
    return v !== undefined && Object.entries(packages).every(([name, version]) => v[name] === version);
  };
  if (ready()) return venvPython;
  const python = process.env.PYTHON ?? 'python3';
  if (!fs.existsSync(venvPython)) {
    log(`creating ${venv} with ${python}`);
    const r = spawnSync(python, ['-m', 'venv', venv], { encoding: 'utf8' });
    if (r.status !== 0)
      throw new Error(`could not create the venv ${venv} with ${python} (Python >= 3.10 with venv is needed):\n${r.stderr || r.error}`);
  }
  const specs = Object.entries(packages).map(([name, version]) => `${name}==${version}`);
  log(`pip install ${specs.join(' ')}`);
  const r = spawnSync(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...specs], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0 || !ready()) {
    throw new Error(
      `could not install ${specs.join(' ')} from PyPI into ${venv} (is PyPI reachable?):\n` +
        `${(r.stdout ?? '').slice(-4000)}${(r.stderr ?? '').slice(-4000)}${r.error ? String(r.error) : ''}`,
    );
  }
  return venvPython;
}

/** Creates or completes the clients venv; returns its python. */
export function ensureClientsVenv(opts: VenvOptions = {}): string {
  return ensureVenv(VENV, PACKAGES, opts);
}

if (require.main === module) {
  try {
    console.log(ensureClientsVenv({ log: (m) => console.error(m) }));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
