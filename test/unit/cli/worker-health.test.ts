/** The worker's health check: RUNNING and listed by Temporal as a recent poller. */
import { checkWorkerHealth, HealthConnection, HealthWorker, POLLER_STALE_MS } from '../../../src/cli/worker-health';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function fakeWorker(runState = 'RUNNING'): HealthWorker {
  return {
    options: { identity: '42@host', taskQueue: 'mcp-tasks', namespace: 'default' },
    getStatus: () => ({ runState, numInFlightActivities: 1, numCachedWorkflows: 3, numInFlightWorkflowActivations: 0 }),
  };
}

function fakeConnection(
  answer: () => Promise<{ pollers?: Array<{ identity: string; lastAccessTime?: { seconds: number } }> }>,
): HealthConnection & { calls: any[] } {
  const calls: any[] = [];
  return {
    calls,
    workflowService: { describeTaskQueue: async (req: unknown) => (calls.push(req), answer()) } as never,
    withDeadline: ((_: number, fn: () => Promise<unknown>) => fn()) as never,
  };
}

test('health: 200 only when RUNNING and Temporal lists this identity as a recent poller', async () => {
  const recent = { identity: '42@host', lastAccessTime: { seconds: NOW / 1000 - 30 } };
  const conn = fakeConnection(async () => ({ pollers: [{ identity: 'other@host' }, recent] }));
  expect(await checkWorkerHealth(fakeWorker(), conn, NOW)).toEqual({
    ok: true,
    state: 'RUNNING',
    taskQueue: 'mcp-tasks',
    namespace: 'default',
    identity: '42@host',
    lastPollAt: '2025-12-31T23:59:30.000Z',
    inFlightActivities: 1,
    cachedWorkflows: 3,
  });
  expect(conn.calls[0]).toEqual({ namespace: 'default', taskQueue: { name: 'mcp-tasks', kind: 1 }, taskQueueType: 1 });
});

test.each([
  [
    'not yet polling',
    fakeWorker(),
    async () => ({ pollers: [{ identity: 'other@host' }] }),
    /no poller with identity 42@host on task queue mcp-tasks/,
  ],
  ['no pollers at all', fakeWorker(), async () => ({}), /no poller with identity/],
  [
    'stale poller',
    fakeWorker(),
    async () => ({ pollers: [{ identity: '42@host', lastAccessTime: { seconds: (NOW - POLLER_STALE_MS) / 1000 - 5 } }] }),
    /last poll .* is 125 s old/,
  ],
  [
    'Temporal down',
    fakeWorker(),
    async () => Promise.reject(new Error('tcp connect error')),
    /Temporal does not answer DescribeTaskQueue: tcp connect error/,
  ],
  ['shutting down', fakeWorker('STOPPING'), async () => ({ pollers: [{ identity: '42@host' }] }), /worker is STOPPING, not RUNNING/],
  ['failed', fakeWorker('FAILED'), async () => ({ pollers: [{ identity: '42@host' }] }), /worker is FAILED/],
])('health: 503 when %s', async (_, worker, answer, reason) => {
  const report = await checkWorkerHealth(worker, fakeConnection(answer), NOW);
  expect(report.ok).toBe(false);
  expect(report.reason).toMatch(reason);
});
