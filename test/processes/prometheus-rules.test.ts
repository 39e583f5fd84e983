/**
 * The shipped alert rules (deploy/prometheus/rules.yml): valid for Prometheus, their unit tests
 * (rules.test.yml) pass, and they name only series that serve or the worker export.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { registry } from '../../src/tasks/metrics';
import { ROOT } from '../support/paths';
import { assertPrometheusInstalled, metricNames, PROMTOOL } from '../support/prometheus';

const run = promisify(execFile);
beforeAll(assertPrometheusInstalled);
const RULES_DIR = path.join(ROOT, 'deploy', 'prometheus');

test('promtool check rules: the shipped rules are valid', async () => {
  const { stdout } = await run(PROMTOOL, ['check', 'rules', 'rules.yml'], { cwd: RULES_DIR });
  expect(stdout).toMatch(/SUCCESS: 8 rules found/);
});

test('promtool test rules: each alert fires on its cause after its `for:`, and not without it', async () => {
  const { stdout } = await run(PROMTOOL, ['test', 'rules', 'rules.test.yml'], { cwd: RULES_DIR });
  expect(stdout).toMatch(/SUCCESS/);
});

test('promtool test rules fails when an expected alert does not fire (the unit tests can fail)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-rules-'));
  try {
    fs.copyFileSync(path.join(RULES_DIR, 'rules.yml'), path.join(dir, 'rules.yml'));
    const tests = fs.readFileSync(path.join(RULES_DIR, 'rules.test.yml'), 'utf8');
    // Temporal answers again before the minute of `for:` is over: no alert, where one is expected
    const broken = tests.replace(/(values: ["'])1 1 0 0 0(["'])/, '$11 1 0 1 0$2');
    expect(broken).not.toBe(tests);
    fs.writeFileSync(path.join(dir, 'rules.test.yml'), broken);
    await expect(run(PROMTOOL, ['test', 'rules', 'rules.test.yml'], { cwd: dir })).rejects.toMatchObject({
      stderr: expect.stringMatching(/FAILED[\s\S]*McpTasksTemporalUnreachable/),
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every mcp_tasks_ series a rule names is one the server registers', async () => {
  const rules = fs.readFileSync(path.join(RULES_DIR, 'rules.yml'), 'utf8');
  const named = new Set([...rules.matchAll(/\b(mcp_tasks_[a-z_]+)\b/g)].map((m) => m[1]));
  const registered = metricNames(await registry.metrics());
  expect(named.size).toBeGreaterThanOrEqual(8);
  expect([...named].filter((n) => !registered.has(n))).toEqual([]);
});
