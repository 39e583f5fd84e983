#!/usr/bin/env node
// Installs the pinned peers of `npm run bench:peer` into the git-ignored .bench-peer/, without root:
// - a Python venv with fastmcp==4.1.4 and fastmcp-tasks==4.1.4 (scripts/clients-venv.ts's ensureVenv),
// - a second venv with lastmile-ai's mcp-agent==0.2.6, the 1.x MCP Python SDK it needs (with mcp 2.x
//   its import fails) and the Temporal Python SDK, pinned (.bench-peer/venv-mcp-agent),
// - Debian's redis-server, fetched with `apt-get download` and unpacked with `dpkg -x` (with the
//   two libraries it links), or the system's redis-server when there is one and no apt-get.
// Idempotent: a second run finds all three and returns at once. Prints the paths as JSON.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureVenv, PACKAGES } from '../../scripts/clients-venv';
import { ROOT } from '../../test/support/paths';

export const DIR = path.join(ROOT, '.bench-peer');
const VENV = path.join(DIR, 'venv');
const MCP_AGENT_VENV = path.join(DIR, 'venv-mcp-agent');
/** mcp-agent 0.2.6 with the newest `mcp<2` and `temporalio` seen to install with it (2026-12). */
export const MCP_AGENT_PACKAGES = { 'mcp-agent': '0.2.6', mcp: '1.30.0', temporalio: '1.35.0' };
const REDIS_ROOT = path.join(DIR, 'redis');
const REDIS_DEBS = ['redis-server', 'redis-tools', 'liblzf1', 'libjemalloc2'];
const LIB_DIR = path.join(REDIS_ROOT, 'usr', 'lib', 'x86_64-linux-gnu');
const log = (m: string) => console.error(`[bench:peer install] ${m}`);

/** { bin, env } that starts redis-server, or undefined when this one does not run. */
export interface Redis {
  bin: string;
  env: Record<string, string>;
  version: string;
}

function tryRedis(bin: string, env: Record<string, string> = {}): Redis | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, ...env } });
  return r.status === 0 ? { bin, env, version: r.stdout.trim() } : undefined;
}

function unpackedRedis(): Redis | undefined {
  return tryRedis(path.join(REDIS_ROOT, 'usr', 'bin', 'redis-server'), { LD_LIBRARY_PATH: LIB_DIR });
}

function systemRedis(): Redis | undefined {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 ? tryRedis(r.stdout.trim()) : undefined;
}

function downloadRedis(): void {
  const debs = path.join(DIR, 'debs');
  fs.mkdirSync(debs, { recursive: true });
  log(`apt-get download ${REDIS_DEBS.join(' ')}`);
  const dl = spawnSync('apt-get', ['download', ...REDIS_DEBS], { cwd: debs, encoding: 'utf8', timeout: 300_000 });
  if (dl.status !== 0) throw new Error(`apt-get download failed: ${dl.stderr || dl.error}`);
  for (const deb of fs.readdirSync(debs).filter((f) => f.endsWith('.deb'))) {
    const x = spawnSync('dpkg', ['-x', path.join(debs, deb), REDIS_ROOT], { encoding: 'utf8' });
    if (x.status !== 0) throw new Error(`dpkg -x ${deb} failed: ${x.stderr || x.error}`);
  }
}

function ensureRedis(): Redis {
  let redis = unpackedRedis();
  if (redis) return redis;
  try {
    downloadRedis();
    redis = unpackedRedis();
  } catch (err) {
    log(`${(err as Error).message.trim()}; trying the system's redis-server`);
  }
  redis ??= systemRedis();
  if (!redis) throw new Error('no redis-server: neither `apt-get download redis-server` nor a system redis-server worked');
  return redis;
}

/** { python, redis: { bin, env, version }, mcpAgent: { python, packages }, dir } of the installed peers. */
export function ensurePeer() {
  fs.mkdirSync(DIR, { recursive: true });
  const python = ensureVenv(VENV, PACKAGES, { log });
  const redis = ensureRedis();
  const mcpAgent = { python: ensureVenv(MCP_AGENT_VENV, MCP_AGENT_PACKAGES, { log }), packages: MCP_AGENT_PACKAGES };
  return { python, redis, mcpAgent, dir: DIR, packages: PACKAGES };
}

if (require.main === module) {
  try {
    console.log(JSON.stringify(ensurePeer(), null, 2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
