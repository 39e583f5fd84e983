import { Connection } from '@temporalio/client';
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../contract';
import { CLI_MISSING_HELP, findTemporalCli, installTemporalCli } from './cli-binary';
import type { DevServer, DevServerOptions } from './dev-server-options';
import { startDownloadedDevServer } from './downloaded-dev-server';

export type { DevServer, DevServerOptions } from './dev-server-options';

const READY_TIMEOUT_MS = 60_000;

/** The dev server did not come up; the message ends with what it printed. */
export class DevServerExitedError extends Error {}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  // the package installs nothing when it is installed (no postinstall): the CLI is fetched the first time `dev` needs it
  const cli = findTemporalCli() ?? (installTemporalCli() ? findTemporalCli() : undefined);
  if (!cli) {
    const downloaded = await startDownloadedDevServer(opts);
    if (downloaded) return downloaded;
    throw new Error(CLI_MISSING_HELP);
  }
  fs.mkdirSync(path.dirname(path.resolve(opts.dbFile)), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    opts.dbFile,
    '--ip',
    opts.host,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--namespace',
    opts.namespace,
    '--log-level',
    'error',
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    `synchronous=${opts.sqliteSynchronous ?? 'full'}`,
    ...(opts.metricsPort !== undefined ? ['--metrics-port', String(opts.metricsPort)] : []),
    ...SEARCH_ATTRIBUTES.flatMap(({ name }) => ['--search-attribute', `${name}=Keyword`]),
  ];
  const child = spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = ''; // the last output, to say why it exited
  const onOutput = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-2000);
    opts.log?.(d.toString());
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  const watchdog = killWithParent(child.pid!);
  await waitUntilServing(opts.host, opts.port, child).catch((err: Error) => {
    watchdog.kill('SIGKILL');
    throw new DevServerExitedError(`${err.message}${tail ? `:\n${tail.trim()}` : ''}`);
  });
  return {
    address: `${opts.host}:${opts.port}`,
    uiUrl: `http://${opts.host}:${opts.uiPort}`,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child);
      watchdog.kill('SIGKILL');
    },
  };
}

/**
 * A tiny shell that kills the Temporal server when this process dies, however it dies
 * (even SIGKILL): its stdin is a pipe from us, and EOF on it means we are gone.
 */
function killWithParent(pid: number): ChildProcess {
  const watchdog = spawn('sh', ['-c', `read _ignored; kill -9 ${pid} 2>/dev/null`], { stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  return watchdog;
}

/**
 * Ready once the frontend answers, not just listens: it accepts connections a moment before it
 * is healthy, and a worker connecting then fails ("Frontend is not healthy yet").
 */
export async function waitUntilServing(host: string, port: number, child: ChildProcess, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`temporal server start-dev exited with code ${exited}`);
    if ((await canConnect(host, port)) && (await answers(`${host}:${port}`))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error(`temporal server start-dev did not answer on ${host}:${port} within ${timeoutMs} ms`);
}

/** Connecting calls GetSystemInfo, which fails while the frontend is not healthy yet. */
async function answers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 2000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 10 s. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
