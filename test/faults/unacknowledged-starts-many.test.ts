/**
 * Many starts whose answers are lost: one sweeper for all of them (one cancel in flight while
 * Temporal does not answer, not one retry loop per start), and every orphan that did start is
 * cancelled once Temporal answers again. The server's close stops the sweeper.
 */
import { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { createMcpTasksServer, type McpTasksServer } from '../../src/mcp/server';
import { logger } from '../../src/tasks/logging';
import { startTcpProxy } from '../support/tcp-proxy';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { listedIds, waitFor } from '../support/wait';
import { report, sleep } from './support';

let temporal: TestTemporal | undefined;
let proxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
const connections: Connection[] = [];
const servers: McpTasksServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(connections.map((c) => c.close()));
  await proxy?.close();
  await temporal?.stop();
});

/** A server on a Temporal client through the proxy; every cancel it sends is counted. */
async function serverThroughProxy() {
  const connection = await Connection.connect({ address: proxy!.address });
  connections.push(connection);
  const client = new Client({ connection, namespace: 'default' });
  const cancels = { sent: 0, inFlight: 0, maxInFlight: 0 };
  const getHandle = client.workflow.getHandle.bind(client.workflow);
  jest.spyOn(client.workflow, 'getHandle').mockImplementation((id: string) => {
    const handle = getHandle(id) as WorkflowHandle;
    const cancel = handle.cancel.bind(handle);
    return Object.assign(handle, {
      cancel: async () => {
        cancels.sent++;
        cancels.maxInFlight = Math.max(cancels.maxInFlight, ++cancels.inFlight);
        try {
          return await cancel();
        } finally {
          cancels.inFlight--;
        }
      },
    });
  });
  // no quotas: their count would go first and fail while Temporal is silent, so no start would reach it
  const server = await createMcpTasksServer({
    client,
    tools: [],
    temporalTimeoutMs: 1000,
    maxRunningTasksPerCaller: 0,
    maxRunningTasks: 0,
    log: () => undefined,
  });
  servers.push(server);
  return { server, cancels };
}

const start = (server: McpTasksServer, text: string) =>
  server.store.start({ tool: 'wait_and_echo', workflowType: 'waitAndEcho', arguments: { text, seconds: 600 }, summary: text });

/** Cancel requested (no worker runs here, so the workflow stays RUNNING with the request recorded). */
async function cancelRequested(id: string): Promise<boolean> {
  const d = await temporal!.client.workflow.getHandle(id).describe();
  return d.status.name === 'CANCELLED' || !!d.raw.workflowExtendedInfo?.cancelRequested;
}

test('20 unacknowledged starts: one sweeper asks once at a time while Temporal is silent, then cancels all 20', async () => {
  temporal = await startTestTemporal();
  proxy = await startTcpProxy(temporal.address);
  const { server, cancels } = await serverThroughProxy();
  const warn = jest.spyOn(logger, 'warn');

  proxy.hold();
  const failed = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => start(server, `orphan-${i}`)));
  expect(failed.every((r) => r.status === 'rejected')).toBe(true);
  // every start reached Temporal: 20 running workflows nobody was told about
  const orphans = await waitFor(async () => {
    const ids = await listedIds(temporal!.client, 'WorkflowType = "waitAndEcho"');
    return ids && ids.length === 20 ? ids : undefined;
  });
  expect(server.store.orphans.size).toBe(20);
  await sleep(4_000); // several sweeps while Temporal stays silent
  expect(cancels.maxInFlight).toBe(1); // one cancel at a time, not 20 loops each with its own
  const sentWhileSilent = cancels.sent;
  expect(sentWhileSilent).toBeGreaterThanOrEqual(1);
  expect(sentWhileSilent).toBeLessThanOrEqual(4); // 0.5 s, then backing off: not 20 per round

  const released = Date.now();
  proxy.release();
  await waitFor(async () => ((await Promise.all(orphans.map(cancelRequested))).every(Boolean) ? true : undefined), 60_000);
  await waitFor(async () => (server.store.orphans.size === 0 && !server.store.orphans.active ? true : undefined), 30_000);
  expect(warn.mock.calls.filter(([f]) => (f as { event?: string }).event === 'task.orphan.cancelled').length).toBeGreaterThan(0);
  report('unacknowledged starts, many', {
    orphansStarted: 20,
    orphansLeftRunning: 0,
    cancelsWhileSilent: sentWhileSilent,
    cleanupMs: Date.now() - released,
  });
  warn.mockRestore();
});

test("the server's close stops its sweeper: no cancel is sent after it", async () => {
  const { server, cancels } = await serverThroughProxy();
  proxy!.hold();
  await expect(start(server, 'left')).rejects.toThrow();
  expect(server.store.orphans.active).toBe(true);
  await server.close();
  expect(server.store.orphans.active).toBe(false);
  const sentAtClose = cancels.sent;
  proxy!.release();
  const [left] = await waitFor(() => listedIds(temporal!.client, 'WorkflowType = "waitAndEcho" AND ExecutionStatus = "Running"'));
  await sleep(3_000); // an open sweeper would cancel it within a second of Temporal answering
  expect(cancels.sent).toBe(sentAtClose);
  const stillRunning = (await listedIds(temporal!.client, 'WorkflowType = "waitAndEcho" AND ExecutionStatus = "Running"')) ?? [];
  const notCancelled = [];
  for (const id of stillRunning) if (!(await cancelRequested(id))) notCancelled.push(id);
  expect(notCancelled).toHaveLength(1);
  expect(left).toBeDefined();
});
