/**
 * The cluster script's own failures, each with a message that says what failed: a server process
 * that exits or never listens, one that ignores SIGTERM, initdb refusing its folder, the schema
 * tool with no PostgreSQL behind it, `npm run cluster` with a wrong command, BENCH_TEMPORAL with
 * a wrong value. No cluster is started here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureServerBuild } from '../../scripts/cluster/build';
import { createSchemas } from '../../scripts/cluster/cluster';
import { launch, waitForPort } from '../../scripts/cluster/daemons';
import { startPostgres } from '../../scripts/cluster/postgres';
import { freePort, HOST } from '../support/ports';
import { killPid, ROOT, spawnProcess } from '../support/processes';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-cluster-script-'));
fs.chmodSync(dir, 0o755); // as clusterUp does: PostgreSQL's user reaches its folder inside
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const log = (name: string) => path.join(dir, `${name}.log`);

test('a process that exits before it listens: the error names it, its exit code and the end of its log', async () => {
  const d = launch('history-1', 'sh', ['-c', 'echo "Unable to create server"; exit 3'], log('exits'));
  await expect(waitForPort(d, HOST, await freePort())).rejects.toThrow(
    /^history-1 exited \(3\) before listening on \d+:\nUnable to create server/,
  );
});

test('a process that never listens: the error names the port and the wait', async () => {
  const d = launch('matching', 'sleep', ['30'], log('silent'));
  const port = await freePort();
  await expect(waitForPort(d, HOST, port, 300)).rejects.toThrow(`matching: nothing listens on ${HOST}:${port} after 300 ms`);
  await d.stop();
});

test('stop(): a process that ignores SIGTERM is SIGKILLed after the grace, and is gone when stop resolves', async () => {
  const d = launch('stubborn', 'sh', ['-c', 'trap "" TERM; sleep 30'], log('stubborn'));
  await new Promise((r) => setTimeout(r, 200)); // the trap is set
  await d.stop('SIGTERM', 300);
  expect(await d.exited).toBe('SIGKILL');
  expect(killPid(d.pid, 0 as unknown as NodeJS.Signals)).toBe(false);
});

test("initdb refusing its folder (not empty): the error is initdb's own", async () => {
  const pg = path.join(dir, 'pg');
  fs.mkdirSync(path.join(pg, 'data'), { recursive: true });
  fs.writeFileSync(path.join(pg, 'data', 'something'), 'x');
  await expect(startPostgres(pg, HOST, await freePort())).rejects.toThrow(/^initdb failed \(exit 1\): .*exists but is not empty/s);
});

test('the schema tool with no PostgreSQL behind the port: the failed command and what it said', async () => {
  const port = await freePort();
  expect(() => createSchemas(ensureServerBuild(), port)).toThrow(
    new RegExp(
      `^temporal-sql-tool --plugin postgres12 --ep ${HOST} -p ${port} .* --db temporal create failed \\(exit 1\\):\\n.*connect`,
      's',
    ),
  );
});

test('npm run cluster with an unknown command: the usage, exit 2', async () => {
  const cli = spawnProcess(process.execPath, [path.join(ROOT, 'build', 'scripts', 'cluster', 'index.js'), 'start']);
  expect(await cli.exited).toBe(2);
  expect(cli.output()).toContain('usage: npm run cluster -- up|down|status');
});

test('BENCH_TEMPORAL other than "cluster": the bench refuses it before starting anything', async () => {
  const bench = spawnProcess(process.execPath, [path.join(ROOT, 'build', 'bench', 'run.js')], {
    env: { BENCH_TEMPORAL: 'kubernetes', BENCH_QUICK: '1', BENCH_SECTIONS: 'create' },
  });
  expect(await bench.exited).not.toBe(0);
  expect(bench.output()).toContain('BENCH_TEMPORAL=kubernetes: only "cluster" (or unset: a dev server)');
});
