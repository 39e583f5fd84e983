/**
 * The Temporal server and its SQL schema tool, built from the Go module go.temporal.io/server at
 * the server version the pinned Temporal CLI embeds (`temporal --version`: "Server X"). Built
 * once into a cache outside the clone ($XDG_CACHE_HOME or ~/.cache, mcp-temporal-tasks/
 * temporal-server-X, Go's own module and build caches beside it), and copied into the clone's
 * git-ignored .cluster/bin/X, so a fresh clone on the same machine builds nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../test/support/paths';

export const MODULE = 'go.temporal.io/server';

export interface ServerBuild {
  version: string;
  /** temporal-server (cmd/server). */
  server: string;
  /** temporal-sql-tool (cmd/tools/sql). */
  sqlTool: string;
  /** The module's schema/postgresql/v12 (temporal/, visibility/). */
  schemaDir: string;
}

/** The server version the pinned CLI embeds. */
export function embeddedServerVersion(cli = path.join(ROOT, '.temporal', 'bin', 'temporal')): string {
  const out = spawnSync(cli, ['--version'], { encoding: 'utf8' });
  const version = /Server (\d+\.\d+\.\d+)/.exec(out.stdout ?? '')?.[1];
  if (!version) throw new Error(`cannot read the embedded server version from \`${cli} --version\`: ${out.error?.message ?? out.stdout}`);
  return version;
}

export function homeCacheDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'mcp-temporal-tasks', `temporal-server-${version}`);
}

export const localDir = (version: string): string => path.join(ROOT, '.cluster', 'bin', version);

const complete = (dir: string) =>
  ['temporal-server', 'temporal-sql-tool', 'schema/temporal', 'schema/visibility'].every((f) => fs.existsSync(path.join(dir, f)));

const layout = (version: string, dir: string): ServerBuild => ({
  version,
  server: path.join(dir, 'temporal-server'),
  sqlTool: path.join(dir, 'temporal-sql-tool'),
  schemaDir: path.join(dir, 'schema'),
});

/** The binaries and schema of `version`: from .cluster/bin, else the home cache, else built now (minutes, cold). */
export function ensureServerBuild(version = embeddedServerVersion(), log: (m: string) => void = () => undefined): ServerBuild {
  const local = localDir(version);
  if (complete(local)) return layout(version, local);
  const cached = path.join(homeCacheDir(version), 'dist');
  if (!complete(cached)) buildInto(version, cached, log);
  fs.mkdirSync(path.dirname(local), { recursive: true });
  fs.cpSync(cached, local, { recursive: true });
  return layout(version, local);
}

/** go build of both commands in a go.mod of our own that requires the server module (GOFLAGS=-mod=mod, the module proxy). */
function buildInto(version: string, dist: string, log: (m: string) => void): void {
  const work = path.join(path.dirname(dist), 'module');
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'go.mod'), `module mcp-temporal-tasks/cluster-build\n\ngo 1.23\n`);
  const staging = `${dist}.partial`;
  fs.rmSync(staging, { recursive: true, force: true });
  const env = { ...process.env, GOFLAGS: '-mod=mod' };
  const go = (...args: string[]) => {
    log(`go ${args.join(' ')} (in ${work})`);
    const out = spawnSync('go', args, { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (out.status !== 0)
      throw new Error(`go ${args.join(' ')} failed (${out.error?.message ?? `exit ${out.status}`}):\n${out.stderr.slice(-4000)}`);
    return out.stdout.trim();
  };
  const started = Date.now();
  go('get', `${MODULE}@v${version}`);
  go('build', '-o', path.join(staging, 'temporal-server'), `${MODULE}/cmd/server`);
  go('build', '-o', path.join(staging, 'temporal-sql-tool'), `${MODULE}/cmd/tools/sql`);
  const moduleDir = go('list', '-m', '-f', '{{.Dir}}', `${MODULE}`);
  // the module cache is read-only: copy, then let the copy be removed like any folder
  fs.cpSync(path.join(moduleDir, 'schema', 'postgresql', 'v12'), path.join(staging, 'schema'), { recursive: true });
  makeWritable(path.join(staging, 'schema'));
  fs.rmSync(dist, { recursive: true, force: true });
  fs.renameSync(staging, dist);
  log(`built temporal-server ${version} in ${Math.round((Date.now() - started) / 1000)} s`);
}

function makeWritable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(p);
    else fs.chmodSync(p, 0o644);
  }
}
