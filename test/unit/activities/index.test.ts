/**
 * Requiring the `./activity` entry loads no server, MCP SDK or CLI code. Checked on the BUILT
 * entry (dist/activities/index.js, what users require) in a child Node, whose module cache is
 * its own.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('requiring dist/activities/index.js (`./activity`) loads no server, MCP SDK or CLI code', () => {
  const script = `
    const entry = require(${JSON.stringify(path.join(ROOT, 'dist', 'activities', 'index.js'))});
    for (const name of ['reportProgress', 'heartbeating', 'idempotencyKey']) if (typeof entry[name] !== 'function') throw new Error('no ' + name);
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));
  `;
  const out = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  const cache = (JSON.parse(out.stdout) as string[]).map((f) => f.split(path.sep).join('/'));
  const serverSide = [/\/dist\/(mcp|tasks|cli|worker)\//, /node_modules\/@modelcontextprotocol\//, /node_modules\/@temporalio\/testing\//];
  expect(cache.filter((f) => serverSide.some((re) => re.test(f)))).toEqual([]);
});
