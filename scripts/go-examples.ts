#!/usr/bin/env node
// Builds the Go example worker (examples/go/, go.temporal.io/sdk pinned in its go.mod) into the
// git-ignored examples/go/bin/. Modules come through the Go module proxy into Go's module cache,
// compiled packages into Go's build cache: a second run links in about a second.
// `node build/scripts/go-examples.js` prints the worker's path.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../test/support/paths';

export const GO_DIR = path.join(ROOT, 'examples', 'go');
export const GO_WORKER = path.join(GO_DIR, 'bin', 'worker');

/** Runs `go <args>` in examples/go (or dir: another copy of it); throws with go's output when it fails or go is missing. */
export function runGo(args: string[], timeoutMs = 900_000, dir = GO_DIR): string {
  const r = spawnSync(process.env.GO ?? 'go', args, { cwd: dir, encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) {
    throw new Error(
      `go ${args.join(' ')} failed in ${dir} (is Go >= 1.26 installed and its module proxy reachable?):\n` +
        `${(r.stdout ?? '').slice(-4000)}${(r.stderr ?? '').slice(-4000)}${r.error ? String(r.error) : ''}`,
    );
  }
  return r.stdout + r.stderr;
}

/** Builds the worker (downloading the modules the first time); returns its path. */
export function ensureGoWorker(): string {
  runGo(['build', '-o', GO_WORKER, './worker']);
  return GO_WORKER;
}

if (require.main === module) {
  try {
    console.log(ensureGoWorker());
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
