/**
 * Issue 24 item 4: a run whose server is SIGKILLed before any handle or result reached its
 * caller is unreachable (nobody holds its taskId). A synchronous run (no handle ever) is
 * started with a bounded execution timeout (--sync-run-timeout-ms); a call from a client
 * without Tasks, still in its bounded wait, started its run with a claim deadline and the run
 * cancels itself when no claim came. A run whose caller already got its handle was claimed and
 * must keep running.
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
const HANDLE_WAIT_MS = 3_000;

async function running(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of temporal.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) ids.push(w.workflowId);
  return ids;
}

test('SIGKILL of serve mid-call: a synchronous run times out, a call still in its bounded wait ends itself failed, a run that handed out its handle keeps running', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  const [sync, handles, waiting] = await Promise.all([
    startServe(temporal.address, ['--no-task-handles', '--sync-run-timeout-ms', String(TIMEOUT_MS)]),
    startServe(temporal.address, ['--handle-wait-ms', '1000', '--sync-run-timeout-ms', String(TIMEOUT_MS)]),
    // a retry grace of 5 s: the claim deadline this test bounds (wait + 5 s) stays the same
    startServe(temporal.address, ['--handle-wait-ms', String(HANDLE_WAIT_MS), '--retry-grace-ms', '5000']),
  ]);

  // a handle first: reachable by its taskId (claimed before it was answered), so it must keep running
  const handle = await rpc(
    handles.url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { text: 'kept', seconds: 3600 } },
    { capabilities: PLAIN },
  );
  if (!handle.body.result?.structuredContent) throw new Error(JSON.stringify(handle.body));
  const handed = handle.body.result.structuredContent.taskId as string;
  const handedAt = Date.now();
  expect(handle.body.result.structuredContent.status).toBe('working');

  // a synchronous call and a call in its bounded wait, both held open when their servers die
  const heldSync = rpc(
    sync.url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { text: 'lost', seconds: 3600 } },
    { capabilities: PLAIN },
  ).catch(() => 'cut');
  const lostSync = await waitFor(async () => (await running()).find((id) => id !== handed));
  const heldWait = rpc(
    waiting.url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { text: 'unclaimed', seconds: 3600 } },
    { capabilities: PLAIN },
  ).catch(() => 'cut');
  const lostWait = await waitFor(async () => (await running()).find((id) => id !== handed && id !== lostSync));
  const killedAt = Date.now();
  for (const s of [sync, handles, waiting]) s.proc.child.kill('SIGKILL');
  expect(await heldSync).toBe('cut');
  expect(await heldWait).toBe('cut');

  const endOf = async (id: string) => {
    const err = await temporal.client.workflow
      .getHandle(id)
      .result()
      .then(
        () => undefined,
        (e) => e,
      );
    return { err, afterKillMs: Date.now() - killedAt, status: (await temporal.client.workflow.getHandle(id).describe()).status.name };
  };
  const [syncEnd, waitEnd] = await Promise.all([endOf(lostSync), endOf(lostWait)]);
  expect(syncEnd.err).toBeInstanceOf(WorkflowFailedError);
  expect((syncEnd.err as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
  expect(syncEnd.status).toBe('TIMED_OUT');
  expect(syncEnd.afterKillMs).toBeLessThan(TIMEOUT_MS + 5_000);
  // unclaimed: ended by its claim guard after the bounded wait plus the grace (5 s at least),
  // failed on every reader (issue 31: nobody requested a cancel), its steps undone
  expect(waitEnd.err).toBeInstanceOf(WorkflowFailedError);
  expect((waitEnd.err as WorkflowFailedError).cause).toMatchObject({
    type: 'McpTaskUnclaimed',
    message: expect.stringMatching(/^nobody claimed the task within \d+ms/),
  });
  expect(waitEnd.status).toBe('FAILED');
  expect(waitEnd.afterKillMs).toBeLessThan(HANDLE_WAIT_MS + 5_000 + 5_000);

  // past both bounds (and its own claim deadline, 1 s + 5 s), the handed-out run still runs
  const wait = 1_000 + 5_000 + 1_000 - (Date.now() - handedAt);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  expect((await temporal.client.workflow.getHandle(handed).describe()).status.name).toBe('RUNNING');
  report('runs abandoned by SIGKILLed servers', {
    syncRunTimeoutMs: TIMEOUT_MS,
    syncEndedAfterKillMs: syncEnd.afterKillMs,
    handleWaitMs: HANDLE_WAIT_MS,
    unclaimedEndedAfterKillMs: waitEnd.afterKillMs,
    handedOutStillRunning: 1,
  });
  await temporal.client.workflow.getHandle(handed).cancel();
});
