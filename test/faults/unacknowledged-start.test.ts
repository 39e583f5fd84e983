/** A start whose answer is lost: the client hears -32603, and the task that did start is cancelled, not left running. */
import { rpc, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTcpProxy } from '../support/tcp-proxy';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { listedIds, waitFor } from '../support/wait';
import { report, sleep } from './support';

let temporal: TestTemporal;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
stopAllAfter(() => temporal);
afterAll(() => proxy?.close());

test('a tools/call whose start was never acknowledged leaves no running task behind', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  proxy = await startTcpProxy(temporal.address);
  // no quotas: their count would go first and fail while the proxy holds, so no start would reach Temporal
  const { url } = await startServe(proxy.address, [
    '--temporal-timeout-ms',
    '1500',
    '--max-running-tasks-per-caller',
    '0',
    '--max-running-tasks',
    '0',
  ]);

  proxy.hold();
  const started = Date.now();
  const { body } = await rpc(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'orphan', seconds: 600 } });
  expect(body.error).toMatchObject({ code: -32603 });
  expect(Date.now() - started).toBeLessThan(5_000);
  // the start did reach Temporal: the workflow runs, though nobody knows its taskId
  const [orphan] = await waitFor(() => listedIds(temporal.client, 'WorkflowType = "waitAndEcho"'));
  await sleep(2_000);
  proxy.release();

  const status = await waitFor(async () => {
    const name = (await temporal.client.workflow.getHandle(orphan).describe()).status.name;
    return name === 'RUNNING' ? undefined : [name];
  }, 60_000);
  expect(status).toEqual(['CANCELLED']);
  report('unacknowledged start', { orphansStarted: 1, orphansLeftRunning: 0, cleanupMs: Date.now() - started });
});
