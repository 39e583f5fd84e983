/**
 * PostgreSQL from the system's packages (Debian's postgresql: initdb and postgres), in a data
 * folder of the cluster's own, on a free loopback port. PostgreSQL refuses to run as root: as
 * root, it runs as `nobody` (setpriv switches user and execs, so the pid is postgres's own);
 * nothing is added to the system.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DB_USER } from './config';
import { sleep } from '../../test/support/wait';
import { type Daemon, launch, type LaunchOptions, waitForPort } from './daemons';

const RUN_AS = 'nobody';

/** initdb's and postgres's folder: PG_BIN, else where `initdb` on PATH really lives, else Debian's newest. */
export function postgresBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_BIN) return env.PG_BIN;
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (which) return path.dirname(fs.realpathSync(which));
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian) ? fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions[0]) return path.join(debian, versions[0], 'bin');
  throw new Error("PostgreSQL not found: install Debian's postgresql (initdb, postgres) or set PG_BIN to their folder");
}

/** The command prefix that runs a PostgreSQL program as a non-root user (empty when not root). */
function asUser(): string[] {
  return process.getuid?.() === 0 ? ['setpriv', `--reuid=${RUN_AS}`, `--regid=${uidOf(RUN_AS, 'g')}`, '--clear-groups', '--'] : [];
}

function uidOf(user: string, kind: 'u' | 'g'): string {
  return spawnSync('id', [`-${kind}`, user], { encoding: 'utf8' }).stdout.trim();
}

export interface Postgres {
  port: number;
  dataDir: string;
  daemon(): Daemon;
  /** Fast shutdown (clients disconnected, no recovery needed), then the same server again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A fresh database cluster in `dir`/data (user `temporal`, trust on loopback), started on `port`. */
export async function startPostgres(dir: string, host: string, port: number, opts: LaunchOptions = {}): Promise<Postgres> {
  const bin = postgresBin();
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', `${RUN_AS}:`, dir]);
  const [cmd, ...prefix] = [...asUser(), path.join(bin, 'initdb')];
  const init = spawnSync(cmd, [...prefix, '-D', dataDir, '-U', DB_USER, '--auth=trust', '-E', 'UTF8', '--no-sync'], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.error?.message ?? `exit ${init.status}`}): ${init.stderr}`);
  return runPostgres(bin, dataDir, path.join(dir, 'postgres.log'), host, port, opts);
}

/** The database cluster of an earlier start, running again. */
export async function runPostgres(
  bin: string,
  dataDir: string,
  logFile: string,
  host: string,
  port: number,
  opts: LaunchOptions = {},
): Promise<Postgres> {
  const start = async () => {
    const [cmd, ...prefix] = [...asUser(), path.join(bin, 'postgres')];
    // five server processes hold up to 30 connections each; the socket sits in the data folder (no /run/postgresql needed)
    const args = [
      ...prefix,
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${host}`,
      '-c',
      `unix_socket_directories=${dataDir}`,
    ];
    const d = launch('postgres', cmd, [...args, '-c', 'max_connections=300'], logFile, opts);
    await waitForPort(d, host, port);
    await acceptingQueries(bin, host, port);
    return d;
  };
  let current = await start();
  return {
    port,
    dataDir,
    daemon: () => current,
    async restart() {
      await current.stop('SIGINT', 30_000);
      current = await start();
    },
    stop: () => current.stop('SIGINT', 30_000),
  };
}

/** pg_isready until the server takes queries (it listens before recovery ends). */
async function acceptingQueries(bin: string, host: string, port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = spawnSync(path.join(bin, 'pg_isready'), ['-h', host, '-p', String(port), '-U', DB_USER], { encoding: 'utf8' });
    if (out.status === 0) return;
    if (Date.now() > deadline) throw new Error(`PostgreSQL on ${host}:${port} not ready after ${timeoutMs} ms: ${out.stdout}`);
    await sleep(100);
  }
}
