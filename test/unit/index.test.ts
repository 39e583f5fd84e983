/**
 * Requiring the `.` entry (the server side) loads no worker-side native code, no test server
 * and no CLI (issue 22, item 2). Checked on the BUILT entry (dist/index.js, what users
 * require) in a child Node, whose module cache is its own.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

const FORBIDDEN = [
  /node_modules\/@temporalio\/worker\//,
  /node_modules\/@temporalio\/core-bridge\//,
  /node_modules\/@temporalio\/testing\//,
  /\/dist\/cli\//,
  /\.node$/,
];

test('requiring dist/index.js loads neither @temporalio/worker, @temporalio/testing nor the CLI', () => {
  const script = `
    const entry = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
    if (typeof entry.createMcpTasksServer !== 'function') throw new Error('no createMcpTasksServer');
    process.stdout.write(JSON.stringify({ cache: Object.keys(require.cache), loaded: process.moduleLoadList.filter((m) => !m.startsWith('Internal')) }));
  `;
  const out = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  const { cache, loaded } = JSON.parse(out.stdout) as { cache: string[]; loaded: string[] };
  expect(cache.some((f) => f.endsWith(path.join('dist', 'index.js')))).toBe(true);
  expect(cache.filter((f) => FORBIDDEN.some((re) => re.test(f.split(path.sep).join('/'))))).toEqual([]);
  // a native addon would show up as a loaded binding
  expect(loaded.filter((m) => /temporal|core-bridge/i.test(m))).toEqual([]);
});

test('the CLI loads the worker side only for the commands that run a worker (serve stays without it)', () => {
  // the preload reports, at exit, every module the CLI had loaded by then (--help exits after loading the CLI)
  const report = `process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(Object.keys(require.cache))));`;
  const out = spawnSync(
    process.execPath,
    ['-e', `${report} require(${JSON.stringify(path.join(ROOT, 'dist', 'cli', 'index.js'))})`, 'serve', '--help'],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  expect(out.stdout).toContain('MCP endpoint only');
  const cache = JSON.parse(out.stderr.trim().split('\n').pop()!) as string[];
  expect(cache.some((f) => f.endsWith(path.join('dist', 'cli', 'index.js')))).toBe(true);
  expect(cache.filter((f) => /node_modules\/@temporalio\/(worker|core-bridge)\//.test(f.split(path.sep).join('/')))).toEqual([]);
});
