/** A server started while Temporal is down reads the namespace (retention, search attributes) once it answers. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { connectTemporal, restartableTemporal } from '../support/temporal';

let temporal: Awaited<ReturnType<typeof restartableTemporal>> | undefined;
let closeClient: (() => Promise<void>) | undefined;
stopAllAfter(() => temporal?.current());
afterAll(() => closeClient?.());

test('search attributes and the retention cap are rechecked when they could not be read at start', async () => {
  temporal = await restartableTemporal();
  const { client, close } = await connectTemporal(temporal.address);
  closeClient = close;
  const ns = await client.workflowService.describeNamespace({ namespace: 'default' });
  const retentionMs = Number(ns.config!.workflowExecutionRetentionTtl!.seconds) * 1000;
  await temporal.kill();
  const { proc, url } = await startServe(temporal.address, ['--ttl-ms', String(retentionMs * 10), '--temporal-timeout-ms', '2000']);
  await proc.waitFor(/Temporal did not answer/);
  await temporal.restart();
  await startWorker(temporal.address);
  await proc.waitFor(/namespace read: ttlMs \d+, search attributes registered/, 30_000);
  const created = await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } });
  expect(created.ttlMs).toBe(retentionMs);
  const d = await client.workflow.getHandle(created.taskId).describe();
  expect(d.searchAttributes.McpTool).toEqual(['wait_and_echo']);
  expect((await pollTask(url, created.taskId)).status).toBe('completed');
});
