#!/usr/bin/env node
// Jaeger v2 (the OpenTelemetry Collector with Jaeger's storage and query API), built from its Go
// module at the pinned version into .tools/ (git-ignored) and cached under
// $HOME/.cache/mcp-temporal-tasks, so a fresh clone on the same machine copies it instead of
// building again. The trace test (test/faults/traces.test.ts) receives spans with it and reads
// them back through its query API. Needs Go; idempotent. `node build/scripts/jaeger.js` prints
// the binary's path (and the build's time when it built).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../test/support/paths';

export const JAEGER_MODULE = 'github.com/jaegertracing/jaeger';
export const JAEGER_VERSION = 'v1.75.0';
const NAME = `jaeger-${JAEGER_VERSION}`;
export const JAEGER_BIN = path.join(ROOT, '.tools', NAME, 'jaeger');
const CACHED_BIN = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'mcp-temporal-tasks', NAME, 'jaeger');

/** The binary: ours, else the machine's cached copy, else built now (minutes, cold). */
export function ensureJaeger(log: (message: string) => void = () => {}): string {
  if (fs.existsSync(JAEGER_BIN)) return JAEGER_BIN;
  if (!fs.existsSync(CACHED_BIN)) build(log);
  fs.mkdirSync(path.dirname(JAEGER_BIN), { recursive: true });
  fs.copyFileSync(CACHED_BIN, JAEGER_BIN);
  fs.chmodSync(JAEGER_BIN, 0o755);
  return JAEGER_BIN;
}

/**
 * `go install module@version` refuses Jaeger (its go.mod has a replace directive), so the
 * module's source is downloaded and built as the main module, where the replace applies.
 */
function build(log: (message: string) => void): void {
  const started = Date.now();
  const download = go(['mod', 'download', '-json', `${JAEGER_MODULE}@${JAEGER_VERSION}`], ROOT);
  const dir = (JSON.parse(download) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download gave no source folder for ${JAEGER_MODULE}@${JAEGER_VERSION}: ${download}`);
  fs.mkdirSync(path.dirname(CACHED_BIN), { recursive: true });
  const partial = `${CACHED_BIN}.partial-${process.pid}`;
  log(`building ${JAEGER_MODULE}/cmd/jaeger@${JAEGER_VERSION} (minutes when cold)`);
  go(['build', '-trimpath', '-buildvcs=false', '-o', partial, './cmd/jaeger'], dir);
  fs.renameSync(partial, CACHED_BIN); // whole or not at all: a build cut short leaves no binary behind
  log(`built Jaeger in ${((Date.now() - started) / 1000).toFixed(0)} s: ${CACHED_BIN}`);
}

function go(args: string[], cwd: string): string {
  const r = spawnSync(process.env.GO ?? 'go', args, { cwd, encoding: 'utf8', timeout: 3_600_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`go ${args.join(' ')}: ${r.error.message} (Go is needed to build Jaeger: https://go.dev/dl/)`);
  if (r.status !== 0) throw new Error(`go ${args.join(' ')} failed (exit ${r.status}):\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

if (require.main === module) {
  try {
    console.log(ensureJaeger((m) => console.error(m)));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
