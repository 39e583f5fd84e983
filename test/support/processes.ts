import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'index.js');
const running = new Set<ChildProcess>();

export interface CliProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout/stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `node dist/cli/index.js ...args`; every process is stopped by stopAll() (afterAll). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    running.delete(child);
    waiters.forEach((w) => w());
    resolve(code);
  }));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in:\n${out}`)), timeoutMs);
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            reject(new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out}`));
          }
        };
        waiters.push(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  })));
}

/** After all tests of a file: stop every spawned process, then the file's Temporal dev server. */
export function stopAllAfter(temporal: () => { stop(): Promise<void> } | undefined): void {
  afterAll(async () => {
    await stopAll();
    await temporal()?.stop();
  });
}
