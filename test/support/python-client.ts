import { spawn } from 'node:child_process';

/**
 * Runs a Python client script of test/clients with `args`; resolves with the JSON of its last
 * stdout line, or rejects with the end of its stderr. Killed after `timeoutMs`.
 */
export function runPythonClient(python: string, script: string, args: string[], timeoutMs = 100_000): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()!));
      else
        reject(
          new Error(`${script.split('/').pop()} ${args.slice(1).join(' ')} exited ${code}:\n${err.split('\n').slice(-20).join('\n')}`),
        );
    });
  });
}
