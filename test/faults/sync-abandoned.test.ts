/**
 * Issue 24 item 4: a synchronous run (its caller gets no task handle) outlives its server when
 * the server is SIGKILLed mid-call: nobody holds its taskId. It is started with a bounded
 * execution timeout (--sync-run-timeout-ms), so it ends. A run whose caller already got a
 * handle is reachable and must keep running.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import { rpc, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';
import { report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const PLAIN = {}; // no Tasks extension declared
const TIMEOUT_MS = 4_000;

async function running(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of temporal.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) ids.push(w.workflowId);
  return ids;
}

test('SIGKILL of serve during a synchronous wait_and_echo of 3,600 s: the run ends (timed out); a run that got a handle keeps running', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  const sync = await startServe(temporal.address, ['--no-task-handles', '--sync-run-timeout-ms', String(TIMEOUT_MS)]);
  const handles = await startServe(temporal.address, ['--handle-wait-ms', '1000', '--sync-run-timeout-ms', String(TIMEOUT_MS)]);

  // a handle first: reachable by its taskId, so never ended by the sync bound
  const handle = await rpc(handles.url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'kept', seconds: 3600 } }, { capabilities: PLAIN });
  if (!handle.body.result?.structuredContent) throw new Error(JSON.stringify(handle.body));
  const handed = handle.body.result.structuredContent.taskId as string;
  expect(handle.body.result.structuredContent.status).toBe('working');

  // the synchronous call, held open when its server dies
  const held = rpc(sync.url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'lost', seconds: 3600 } }, { capabilities: PLAIN }).catch(() => 'cut');
  const lost = await waitFor(async () => (await running()).find((id) => id !== handed));
  const killedAt = Date.now();
  sync.proc.child.kill('SIGKILL');
  handles.proc.child.kill('SIGKILL');
  expect(await held).toBe('cut');

  const ended = await temporal.client.workflow.getHandle(lost).result().then(() => 'completed', (err) => err);
  const endedAfterMs = Date.now() - killedAt;
  expect(ended).toBeInstanceOf(WorkflowFailedError);
  expect((ended as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
  expect((await temporal.client.workflow.getHandle(lost).describe()).status.name).toBe('TIMED_OUT');
  expect(endedAfterMs).toBeLessThan(TIMEOUT_MS + 5_000);

  // past the bound, the handed-out run still runs
  expect((await temporal.client.workflow.getHandle(handed).describe()).status.name).toBe('RUNNING');
  report('sync run abandoned by a SIGKILLed server', { syncRunTimeoutMs: TIMEOUT_MS, endedAfterKillMs: endedAfterMs, handedOutStillRunning: 1 });
  await temporal.client.workflow.getHandle(handed).cancel();
});
