/**
 * The cluster's processes (PostgreSQL, the Temporal services): their output goes to a log file,
 * not a pipe, so `npm run cluster -- up` can exit and leave them running (detached). Stopped by
 * pid; what a test started is SIGKILLed on its process's exit if nothing stopped it before.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { killPid } from '../../test/support/processes';
import { sleep } from '../../test/support/wait';

export interface Daemon {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves with the exit code or signal; for a process of an earlier `up`, never. */
  exited: Promise<number | string | null>;
  /** `signal`, then SIGKILL after graceMs; resolves once the process is gone. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export interface LaunchOptions {
  /** Outlives this process (the CLI's `up`). */
  detached?: boolean;
  env?: NodeJS.ProcessEnv;
}

const attached = new Set<number>();
process.on('exit', () => attached.forEach((pid) => killPid(pid)));

export function launch(name: string, command: string, args: string[], logFile: string, opts: LaunchOptions = {}): Daemon {
  const fd = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', fd, fd],
    detached: true, // its own process group: a terminal's ^C to `up` does not reach it
    env: { ...process.env, ...opts.env },
  });
  fs.closeSync(fd);
  if (!child.pid) throw new Error(`${name}: cannot start ${command}`);
  const pid = child.pid;
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      attached.delete(pid);
      resolve(code ?? signal);
    });
    child.once('error', (err) => resolve(err.message));
  });
  if (opts.detached) child.unref();
  else attached.add(pid);
  return { name, pid, logFile, exited, stop: (signal, graceMs) => stopPid(pid, signal, graceMs) };
}

/** A process this one did not start (an earlier `up`), known by pid only. */
export function adopt(name: string, pid: number, logFile: string): Daemon {
  return { name, pid, logFile, exited: new Promise(() => undefined), stop: (signal, graceMs) => stopPid(pid, signal, graceMs) };
}

const alive = (pid: number) => killPid(pid, 0 as unknown as NodeJS.Signals);

async function stopPid(pid: number, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (!killPid(pid, signal)) return;
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  if (alive(pid)) killPid(pid, 'SIGKILL');
  while (alive(pid)) await sleep(20);
  attached.delete(pid);
}

/** Resolves once host:port accepts a connection; rejects after timeoutMs or when the daemon exits. */
export async function waitForPort(daemon: Daemon, host: string, port: number, timeoutMs = 60_000): Promise<void> {
  let gone: string | undefined;
  void daemon.exited.then((code) => (gone = String(code)));
  const deadline = Date.now() + timeoutMs;
  while (!(await connects(host, port))) {
    if (gone !== undefined) throw new Error(`${daemon.name} exited (${gone}) before listening on ${port}:\n${tail(daemon.logFile)}`);
    if (Date.now() > deadline)
      throw new Error(`${daemon.name}: nothing listens on ${host}:${port} after ${timeoutMs} ms:\n${tail(daemon.logFile)}`);
    await sleep(100);
  }
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The end of a log file, for error messages. */
export function tail(file: string, chars = 3000): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '(no log)';
  }
}
