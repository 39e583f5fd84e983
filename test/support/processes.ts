/**
 * Child processes of tests, benches and scripts: started with their output collected, waited on
 * by a pattern in that output, stopped by pid (SIGTERM, then SIGKILL after a grace period).
 * Every process started here is remembered until it exits, so stopAll() can end what is left.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { CLI, ROOT } from './paths';

export { ROOT } from './paths';
// jest's afterAll hook lives in ./hooks (benches never load jest globals); re-exported for the tests that import it from here
export { stopAllAfter } from './hooks';

const running = new Set<ChildProcess>();

export interface SpawnOptions {
  cwd?: string;
  /** Added to process.env (or, with inheritEnv: false, the whole environment). */
  env?: NodeJS.ProcessEnv;
  inheritEnv?: boolean;
  /** Keep only the last this many characters of output (a long bench); default: all. */
  keepOutput?: number;
  /** Named in errors; default: the command's last argument or name. */
  name?: string;
  /** In its own process group (a signal to -pid reaches its children). */
  detached?: boolean;
}

export interface ChildHandle {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal`, SIGKILL after graceMs; resolves with the exit code (or the signal's name). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
  /** Resolves with the exit code (or the signal's name) when the process has exited. */
  exited: Promise<number | null>;
}

/** The name kept for the tests' CLI processes. */
export type CliProcess = ChildHandle;

/** Any command, with its output collected. */
export function spawnProcess(command: string, args: string[], opts: SpawnOptions = {}): ChildHandle {
  const env = opts.inheritEnv === false ? opts.env : { ...process.env, ...opts.env };
  const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached });
  const name = opts.name ?? args[args.length - 1] ?? command;
  running.add(child);
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    if (opts.keepOutput && out.length > opts.keepOutput) out = out.slice(-opts.keepOutput);
    waiters.forEach((w) => w());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      waiters.forEach((w) => w());
      resolve(code ?? (signal as unknown as number | null));
    }),
  );
  // a command that cannot start (ENOENT) gets 'error': let waitFor see it has no pid to wait on
  child.once('error', (err) => {
    out += `\n${err.message}`;
    waiters.forEach((w) => w());
  });
  return {
    child,
    pid: child.pid!,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const finish = (err: Error | undefined, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(match!);
        };
        const timer = setTimeout(() => finish(new Error(`${name}: timed out waiting for ${pattern} in:\n${out}`)), timeoutMs);
        const check = () => {
          const m = out.match(pattern);
          if (m) finish(undefined, m);
          else if (!isAlive(child)) finish(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out}`));
        };
        waiters.add(check);
        check();
      });
    },
    stop: (signal = 'SIGTERM', graceMs = 15_000) => stopChild(child, exited, signal, graceMs),
  };
}

/** `node dist/cli/index.js ...args` (nodeArgs are Node flags, e.g. --cpu-prof). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, opts: SpawnOptions & { nodeArgs?: string[] } = {}): CliProcess {
  return spawnProcess(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...args], { name: args[0], ...opts, env: { ...opts.env, ...env } });
}

const isAlive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function stopChild(
  child: ChildProcess,
  exited: Promise<number | null>,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill(signal);
  const timer = setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Stops every process started here that is still running: `signal` (SIGKILL by default), SIGKILL after graceMs. */
export async function stopAll(signal: NodeJS.Signals = 'SIGKILL', graceMs = 5_000): Promise<void> {
  await Promise.all(
    [...running].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const kill = setTimeout(() => c.kill('SIGKILL'), graceMs);
          c.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill(signal);
        }),
    ),
  );
}

/** SIGKILL a pid we started; false when it is already gone. */
export function killPid(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a bench or script started, stopped last-in first-out by run(); the pids also get a
 * synchronous SIGKILL from killLeftovers() (on process 'exit') if a stop did not end them.
 */
export class Cleanup {
  private steps: Array<{ name: string; pid?: number; stop: () => unknown }> = [];
  readonly pids = new Set<number>();
  private done = false;

  add(name: string, pid: number | undefined, stop: () => unknown): void {
    this.steps.push({ name, pid, stop });
    if (pid) this.pids.add(pid);
  }

  async run(): Promise<void> {
    if (this.done) return;
    this.done = true;
    for (const { name, pid, stop } of this.steps.reverse()) {
      try {
        await stop();
        if (pid) this.pids.delete(pid);
      } catch (err) {
        console.error(`cleanup ${name}: ${(err as Error).message}`);
      }
    }
    this.killLeftovers();
  }

  /** Last resort: SIGKILL whatever was started and is still alive. */
  killLeftovers(): void {
    for (const pid of this.pids) killPid(pid);
    this.pids.clear();
  }

  /** A started process, stopped (by pid) with the rest. */
  track<T extends { pid: number; stop(): Promise<unknown> }>(name: string, proc: T): T {
    this.add(name, proc.pid, () => proc.stop());
    return proc;
  }
}
