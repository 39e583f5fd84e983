/** A start whose answer is lost: the client hears -32603, and the task that did start is cancelled, not left running. */
import { rpc, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTcpProxy } from '../support/tcp-proxy';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { report, sleep } from './support';

let temporal: TestTemporal;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
stopAllAfter(() => temporal);
afterAll(() => proxy?.close());

test('a tools/call whose start was never acknowledged leaves no running task behind', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  proxy = await startTcpProxy(temporal.address);
  const { url } = await startServe(proxy.address, ['--temporal-timeout-ms', '1500']);

  proxy.hold();
  const started = Date.now();
  const { body } = await rpc(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'orphan', seconds: 600 } });
  expect(body.error).toMatchObject({ code: -32603 });
  expect(Date.now() - started).toBeLessThan(5_000);
  // the start did reach Temporal: the workflow runs, though nobody knows its taskId
  const [orphan] = await waitFor(async () => ids('WorkflowType = "waitAndEcho"'));
  await sleep(2_000);
  proxy.release();

  const status = await waitFor(async () => {
    const name = (await temporal.client.workflow.getHandle(orphan).describe()).status.name;
    return name === 'RUNNING' ? undefined : [name];
  }, 60_000);
  expect(status).toEqual(['CANCELLED']);
  report('unacknowledged start', { orphansStarted: 1, orphansLeftRunning: 0, cleanupMs: Date.now() - started });
});

async function ids(query: string): Promise<string[] | undefined> {
  const found: string[] = [];
  for await (const wf of temporal.client.workflow.list({ query })) found.push(wf.workflowId);
  return found.length ? found : undefined;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(250);
  }
}
