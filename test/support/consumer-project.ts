/**
 * Helpers for the packaging test: a fresh project outside this repository that installs the
 * packed tarball, compiles the README's code and runs it as child processes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ChildHandle, spawnProcess, stopAll } from './processes';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end (never rejects on a non-zero exit: the caller asserts). */
export function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${cmd} ${args.join(' ')} took more than ${opts.timeoutMs} ms\n${stdout}\n${stderr}`));
        }, opts.timeoutMs)
      : undefined;
    child.once('error', reject);
    child.once('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * The environment for npm and the consumer's processes. Under `npm test` the outer npm exports
 * npm_config_local_prefix=<this repo> (an inner `npm install` would then install HERE) and
 * npm_package_*; only the settings that say where the cache and registry are pass through.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const keep = /^npm_config_(cache|userconfig|globalconfig|registry|cafile|proxy|https_proxy|noproxy|strict_ssl)$/i;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) && !keep.test(k)) continue;
    if (k === 'MCP_TOOLS_MODULE' || k === 'INIT_CWD') continue; // test/support/env.ts; npm's
    env[k] = v;
  }
  return { ...env, ...extra };
}

export interface ReadmeFile {
  file: string;
  code: string;
}

/** The ```ts blocks of one README section, each named by its first line `// <file>.ts[: ...]`. */
export function readmeCodeBlocks(readme: string, heading: string): ReadmeFile[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const rest = readme.slice(start + heading.length + 2);
  const next = rest.search(/^## /m);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code]) => {
    const named = code.split('\n')[0].match(/^\/\/ ([\w.-]+\.ts)(?::.*)?$/);
    if (!named) throw new Error(`a README code block does not start with "// <file>.ts":\n${code}`);
    return { file: named[1], code };
  });
}

export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

export type NodeProcess = ChildHandle;

/** `node <script>` in the consumer project, with exactly `env`; stopped by stopNodeProcesses(). */
export function spawnNode(cwd: string, script: string, env: NodeJS.ProcessEnv): NodeProcess {
  return spawnProcess(process.execPath, [script], { cwd, env, inheritEnv: false, name: script });
}

/** SIGTERM every process started (by its pid), SIGKILL what is still there after graceMs. */
export function stopNodeProcesses(graceMs = 5000): Promise<void> {
  return stopAll('SIGTERM', graceMs);
}
