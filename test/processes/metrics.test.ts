/**
 * GET /metrics of `serve` (beside /healthz, or on --metrics-port, or off) and of the worker
 * (--metrics-port: the Temporal SDK's), read after real traffic; the Grafana dashboard names only
 * series they export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { call, createTask, pollTask, rpc, startServe, startWorker } from '../support/mcp';
import { freePort } from '../support/ports';
import { stopAllAfter } from '../support/processes';
import { metricNames, parseSamples, sampleSum, scrape } from '../support/prometheus';
import { ROOT } from '../support/paths';
import { startTestTemporal, type TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const metricsUrlOf = (mcpUrl: string) => mcpUrl.replace(/\/mcp$/, '/metrics');
let serveText = '';
let workerText = '';

test('serve counts requests, tasks, reads and Temporal calls at GET /metrics, with no taskId or principal in it', async () => {
  temporal = await startTestTemporal();
  const workerPort = await freePort();
  await startWorker(temporal.address, {}, ['--metrics-port', String(workerPort)]);
  const { url } = await startServe(temporal.address, [], { MCP_AUTH_TOKENS: 'alice:secret-alice' });
  const auth = { headers: { authorization: 'Bearer secret-alice' } };
  const taskId = await createTask(url, 'wait_and_echo', { text: 'counted', seconds: 0 }, auth);
  await pollTask(url, taskId, undefined, 30_000, auth);
  await call(url, 'tasks/get', { taskId }, auth); // a finished task: from the cache
  const unknown = await rpc(url, 'tools/call', { name: 'no_such_tool', arguments: {} }, auth);
  expect(unknown.body.error).toBeDefined();
  const anonymous = await fetch(url, { method: 'POST', body: '{}' });
  expect(anonymous.status).toBe(401);

  const response = await fetch(metricsUrlOf(url));
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  serveText = await response.text();
  const samples = parseSamples(serveText);
  expect(sampleSum(samples, 'mcp_tasks_requests_total', { method: 'tools/call', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  expect(sampleSum(samples, 'mcp_tasks_requests_total', { method: 'tools/call', outcome: 'error' })).toBe(1);
  expect(sampleSum(samples, 'mcp_tasks_requests_total', { outcome: 'refused' })).toBeGreaterThanOrEqual(1);
  expect(sampleSum(samples, 'mcp_tasks_request_duration_seconds_count', { method: 'tasks/get' })).toBeGreaterThanOrEqual(2);
  expect(sampleSum(samples, 'mcp_tasks_tasks_started_total', { tool: 'wait_and_echo' })).toBe(1);
  expect(sampleSum(samples, 'mcp_tasks_tasks_ended_total', { tool: 'wait_and_echo', state: 'completed' })).toBe(1);
  expect(sampleSum(samples, 'mcp_tasks_task_reads_total', { source: 'temporal' })).toBeGreaterThanOrEqual(1);
  expect(sampleSum(samples, 'mcp_tasks_task_reads_total', { source: 'finished_cache' })).toBeGreaterThanOrEqual(1);
  expect(sampleSum(samples, 'mcp_tasks_temporal_request_duration_seconds_count')).toBeGreaterThanOrEqual(2);
  expect(sampleSum(samples, 'mcp_tasks_temporal_up')).toBe(1);
  expect(sampleSum(samples, 'mcp_tasks_watches_limit')).toBe(10_000);
  expect(sampleSum(samples, 'mcp_tasks_process_cpu_seconds_total')).toBeGreaterThan(0);
  // what identifies a task or a caller is never a label
  expect(serveText).not.toContain(taskId);
  expect(serveText).not.toMatch(/alice|o1_/);

  // the SDK exports its series a moment after the workflow task that completed the workflow
  const completed = /^temporal_workflow_completed_total\{.*workflow_type="waitAndEcho"/m;
  workerText = await waitFor(
    async () => {
      const text = await scrape(`http://127.0.0.1:${workerPort}/metrics`);
      return completed.test(text) ? text : undefined;
    },
    20_000,
    250,
    'no temporal_workflow_completed_total of waitAndEcho',
  );
});

test('--metrics-port serves /metrics on its own port (not the MCP port); --no-metrics serves none', async () => {
  const own = await startServe(temporal.address, ['--metrics-port', '0']);
  const [, metricsUrl] = await own.proc.waitFor(/Metrics: (\S+)/);
  expect(await scrape(metricsUrl)).toMatch(/^mcp_tasks_temporal_up 1$/m);
  expect((await fetch(metricsUrlOf(own.url))).status).toBe(404);
  const off = await startServe(temporal.address, [], { MCP_METRICS: 'false' });
  expect((await fetch(metricsUrlOf(off.url))).status).toBe(404);
  const bad = await startServe(temporal.address, ['--metrics-port', 'abc']).catch((err: Error) => err);
  expect(String(bad)).toMatch(/metricsPort \(--metrics-port or MCP_METRICS_PORT\)/);
});

test('the Grafana dashboard queries only series serve or the worker export', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy', 'grafana', 'mcp-temporal-tasks.json'), 'utf8'));
  const exprs: string[] = [
    ...dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr)),
    ...dashboard.templating.list.map((v: any) => v.query),
  ];
  expect(exprs.length).toBeGreaterThanOrEqual(10);
  const named = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:mcp_tasks|temporal)_[a-z_]+)\b/g)].map((m) => m[1])));
  const exported = new Set([...metricNames(serveText), ...metricNames(workerText)]);
  expect([...named].filter((n) => !exported.has(n))).toEqual([]);
});
