/**
 * The production worker, as real processes against a real dev server: the health endpoint proves
 * polling (200) and says why not (503), SDK metrics reach a Prometheus endpoint, SIGTERM lets the
 * activity in flight finish within the grace, and bad settings exit 2 naming flag and variable.
 */
import { LedgerLog, ledgerCounts, ledgerDir } from '../support/ledger';
import { createTask, pollTask, startServe, startWorker } from '../support/mcp';
import { YOUNG_GENERATION_PROBE } from '../support/paths';
import { freePort } from '../support/ports';
import { CliProcess, spawnCli, stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';

let temporal: TestTemporal | undefined;
stopAllAfter(() => temporal);

const exitCode = (proc: CliProcess) => proc.exited;

async function health(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** waitFor, with a probe that may fail meanwhile (a process still starting). */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> =>
  waitFor(() => probe().catch(() => undefined), timeoutMs, 200, `timed out waiting for ${what}`);

const ledgerCount = (dir: string, log: LedgerLog, key: string): number => ledgerCounts(dir, log).get(key) ?? 0;

describe('worker settings', () => {
  test.each([
    [['--shutdown-grace', 'soon'], {}, /shutdownGrace \(--shutdown-grace or MCP_WORKER_SHUTDOWN_GRACE\): "soon" is not a duration/],
    [
      ['--max-concurrent-workflow-tasks', '1'],
      {},
      /maxConcurrentWorkflowTasks \(--max-concurrent-workflow-tasks or MCP_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS\)/,
    ],
    [[], { MCP_WORKER_MAX_CACHED_WORKFLOWS: '-1' }, /maxCachedWorkflows \(--max-cached-workflows or MCP_WORKER_MAX_CACHED_WORKFLOWS\)/],
    [['--metrics-port', '0'], {}, /metricsPort \(--metrics-port or MCP_METRICS_PORT\)/],
    [[], { MCP_HEALTH_PORT: 'eighty' }, /healthPort \(--health-port or MCP_HEALTH_PORT\)/],
  ])('worker %j %j exits 2 with a clear message', async (args, env, message) => {
    const proc = spawnCli(['worker', ...args], { TEMPORAL_ADDRESS: '127.0.0.1:1', ...env });
    expect(await exitCode(proc)).toBe(2);
    expect(proc.output()).toMatch(/Invalid worker configuration/);
    expect(proc.output()).toMatch(message);
  });
});

describe('a production worker on a real Temporal', () => {
  const ledger = ledgerDir();
  let url: string;
  let healthUrl: string;
  let readyUrl: string;

  beforeAll(async () => {
    temporal = await startTestTemporal();
  });

  test('/readyz answers 200 once Temporal lists the worker as polling, /healthz while it runs; /metrics serves temporal_ metrics after a task', async () => {
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const worker = await startWorker(temporal!.address, { MCP_TASKS_LEDGER_DIR: ledger }, [
      '--health-port',
      String(healthPort),
      '--metrics-port',
      String(metricsPort),
    ]);
    healthUrl = `http://127.0.0.1:${healthPort}/healthz`;
    readyUrl = `http://127.0.0.1:${healthPort}/readyz`;
    await worker.waitFor(/worker metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(worker.output()).toContain(`worker health: ${healthUrl} (liveness), ${readyUrl} (readiness)`);
    const ok = await eventually('ready 200', async () => {
      const h = await health(readyUrl);
      return h.status === 200 ? h : undefined;
    });
    expect(await health(healthUrl)).toMatchObject({ status: 200, body: { state: 'RUNNING', taskQueue: 'mcp-tasks' } });
    expect(ok.body).toMatchObject({
      state: 'RUNNING',
      taskQueue: 'mcp-tasks',
      namespace: 'default',
      identity: expect.stringMatching(/^\d+@/),
    });
    expect(Date.parse(ok.body.lastPollAt)).toBeGreaterThan(Date.now() - 120_000);
    expect((await fetch(healthUrl.replace('/healthz', '/other'))).status).toBe(404);

    ({ url } = await startServe(temporal!.address));
    const taskId = await createTask(url, 'provision_environment', { name: 'metrics', steps: 1, stepMs: 100 });
    expect(await pollTask(url, taskId)).toMatchObject({ status: 'completed' });
    const metrics = await eventually('workflow metrics', async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return /^temporal_workflow_completed/m.test(text) ? text : undefined;
    });
    expect(metrics).toMatch(/^temporal_activity_execution_latency\w*\{/m);
    expect(metrics).toMatch(/task_queue="mcp-tasks"/);
  });

  test('SIGTERM with a step in flight: the step finishes within the grace (503 meanwhile), the worker exits 0, a new worker completes the task', async () => {
    // its own task queue, so the worker of the test above does not take the work
    const queue = ['--task-queue', 'drain-test'];
    const { url: drainUrl } = await startServe(temporal!.address, queue);
    const healthPort = await freePort();
    const first = await startWorker(temporal!.address, { MCP_TASKS_LEDGER_DIR: ledger, MCP_LOG_LEVEL: 'debug' }, [
      ...queue,
      '--shutdown-grace',
      '20s',
      '--health-port',
      String(healthPort),
    ]);
    const taskId = await createTask(drainUrl, 'provision_environment', { name: 'drain', steps: 2, stepMs: 4000 });
    const step1 = `provision-${taskId}:step-1`;
    await eventually('step 1 running', async () => (ledgerCount(ledger, 'attempts.log', step1) === 1 ? true : undefined));

    const sent = Date.now();
    first.child.kill('SIGTERM');
    await first.waitFor(/no new work; running activities have 20000 ms to finish/);
    const draining = await health(`http://127.0.0.1:${healthPort}/readyz`);
    expect(draining.status).toBe(503);
    expect(draining.body.reason).toMatch(/not RUNNING/);
    // a draining worker is alive: a liveness probe must not have it killed before its grace ends
    expect(await health(`http://127.0.0.1:${healthPort}/healthz`)).toMatchObject({
      status: 200,
      body: { state: expect.not.stringMatching(/^RUNNING$/) },
    });
    expect(await exitCode(first)).toBe(0);
    const drainMs = Date.now() - sent;

    // the step ran to its end on the stopping worker: applied once, never cancelled or retried
    expect(ledgerCount(ledger, 'effects.log', step1)).toBe(1);
    expect(drainMs).toBeGreaterThan(1000);
    expect(drainMs).toBeLessThan(20_000);
    expect(first.output()).not.toMatch(/Activity not found|CancelledFailure|WORKER_SHUTDOWN/);
    expect(ledgerCount(ledger, 'attempts.log', `provision-${taskId}:step-2`)).toBe(0);

    await startWorker(temporal!.address, { MCP_TASKS_LEDGER_DIR: ledger }, queue);
    expect(await pollTask(drainUrl, taskId, undefined, 60_000)).toMatchObject({ status: 'completed' });
    expect(ledgerCount(ledger, 'attempts.log', step1)).toBe(1);
    expect(ledgerCount(ledger, 'effects.log', `provision-${taskId}:step-2`)).toBe(1);
    console.log(`[worker] SIGTERM mid-step: drained in ${drainMs} ms`);
  });

  test("the workflow threads get the young generation the settings give: at most two semi-spaces of 4 MB by default, V8's own with 0", async () => {
    const youngGenerationMb = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const worker = await startWorker(temporal!.address, env, ['--task-queue', 'young-generation', ...args], {
        nodeArgs: ['--require', YOUNG_GENERATION_PROBE],
      });
      const [, mb] = await worker.waitFor(/young generation after a burst: ([\d.]+) MB/);
      await worker.stop('SIGTERM');
      return Number(mb);
    };
    expect(await youngGenerationMb([])).toBeLessThanOrEqual(8);
    expect(await youngGenerationMb([], { MCP_WORKFLOW_SEMI_SPACE_MB: '2' })).toBeLessThanOrEqual(4);
    expect(await youngGenerationMb(['--workflow-semi-space-mb', '0'])).toBeGreaterThan(8);
  });

  test('/readyz answers 503 with the reason once its Temporal is SIGKILLed; /healthz stays 200', async () => {
    const dead = temporal!;
    temporal = undefined;
    process.kill(dead.server.pid, 'SIGKILL');
    await dead.stop().catch(() => undefined);
    const down = await eventually('ready 503', async () => {
      const h = await health(readyUrl);
      return h.status === 503 ? h : undefined;
    });
    expect(down.body.reason).toMatch(/Temporal does not answer|not RUNNING/);
    expect(down.body.taskQueue).toBe('mcp-tasks');
    expect(await health(healthUrl)).toMatchObject({ status: 200, body: { taskQueue: 'mcp-tasks' } });
    console.log(`[worker] health after the Temporal SIGKILL: ${down.status} ${down.body.reason}`);
  });
});
