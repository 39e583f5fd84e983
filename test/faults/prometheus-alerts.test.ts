/**
 * A real Prometheus (Debian's) scrapes `serve` and a worker through a load and a fault, with the
 * shipped rules: stopping Temporal fires McpTasksTemporalUnreachable (serve) and
 * McpTasksWorkerCannotReachTemporal (the worker), and starting it again resolves the first (the
 * second's one-minute rate window keeps it a minute longer, which CI need not wait for). The
 * rules' `for:` is shortened in the test's copy only (each rule's timing is what promtool's unit
 * tests check, test/processes/prometheus-rules.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pollTask, startServe, startWorker } from '../support/mcp';
import { freePort } from '../support/ports';
import { stopAllAfter } from '../support/processes';
import { alertIn, type RunningPrometheus, startPrometheus } from '../support/prometheus';
import { ROOT } from '../support/paths';
import { waitFor } from '../support/wait';
import { createTask, restartableTemporal } from './support';

let temporal: Awaited<ReturnType<typeof restartableTemporal>> | undefined;
let prometheus: RunningPrometheus | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-rules-'));
stopAllAfter(() => temporal?.current());
afterAll(async () => {
  await prometheus?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The shipped rules with every `for:` at 4 s: the alert is seen pending, then firing, within seconds. */
function rulesWithShortFor(): string {
  const rules = fs.readFileSync(path.join(ROOT, 'deploy', 'prometheus', 'rules.yml'), 'utf8');
  const file = path.join(dir, 'rules.yml');
  fs.writeFileSync(file, rules.replace(/^(\s+for:) \S+$/gm, '$1 4s'));
  return file;
}

test('Prometheus scrapes serve and the worker under load; Temporal stopped fires the alerts about it, restarted resolves the one of serve', async () => {
  temporal = await restartableTemporal();
  const workerMetrics = await freePort();
  await startWorker(temporal.address, {}, ['--metrics-port', String(workerMetrics)]);
  const { url } = await startServe(temporal.address);
  const serveTarget = new URL(url).host;
  // the probe of Temporal in a scrape takes up to 3 s when it does not answer: scrapes every 5 s
  prometheus = await startPrometheus({
    targets: { serve: serveTarget, worker: `127.0.0.1:${workerMetrics}` },
    ruleFiles: [rulesWithShortFor()],
    scrapeS: 5,
    evaluateS: 1,
  });

  // load: tasks created and polled to their end
  const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => createTask(url, 'wait_and_echo', { text: `load ${i}`, seconds: 0 })));
  await Promise.all(ids.map((id) => pollTask(url, id)));
  const seen = (expr: string, atLeast: number) =>
    waitFor(async () => ((await prometheus!.query(expr))[0]?.value ?? 0) >= atLeast || undefined, 30_000, 500, `${expr} < ${atLeast}`);
  await seen('sum(mcp_tasks_tasks_started_total{job="serve", tool="wait_and_echo"})', 8);
  await seen('sum(mcp_tasks_tasks_ended_total{job="serve", state="completed"})', 8);
  await seen('sum(temporal_workflow_completed_total{job="worker"})', 8);
  expect((await prometheus.targets()).map((t) => [t.labels.job, t.health]).sort()).toEqual([
    ['serve', 'up'],
    ['worker', 'up'],
  ]);
  expect((await prometheus.alerts()).filter((a) => a.labels.alertname === 'McpTasksTemporalUnreachable')).toEqual([]);

  // the fault: Temporal is gone
  await temporal.kill();
  const pending = await alertIn(prometheus, 'McpTasksTemporalUnreachable', 'pending');
  expect(pending.labels).toMatchObject({ job: 'serve', instance: serveTarget, severity: 'page' });
  await alertIn(prometheus, 'McpTasksTemporalUnreachable', 'firing');
  // the worker's side: its polls fail (the SDK's temporal_long_request_failure_total)
  const worker = await alertIn(prometheus, 'McpTasksWorkerCannotReachTemporal', 'firing');
  expect(worker.labels).toMatchObject({ job: 'worker', instance: `127.0.0.1:${workerMetrics}` });

  // and back: the alert resolves
  await temporal.restart();
  await waitFor(
    async () => ((await prometheus!.alerts()).some((a) => a.labels.alertname === 'McpTasksTemporalUnreachable') ? undefined : true),
    60_000,
    1_000,
    'McpTasksTemporalUnreachable still active after Temporal came back',
  );
});
