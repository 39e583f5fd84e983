/** Case 4: with no worker running, tasks/get answers from Temporal at once; update and cancel are recorded. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

async function timedGet(url: string, taskId: string) {
  const started = Date.now();
  const task = await call(url, 'tasks/get', { taskId });
  return { task, ms: Date.now() - started };
}

test('no worker: get within 1 s, update and cancel acked and applied when a worker returns', async () => {
  temporal = await startTestTemporal();
  const worker = await startWorker(temporal.address);
  const { url } = await startServe(temporal.address);
  const approval = await createTask(url, 'approve_expense', { amount: 3, description: 'coffee' });
  const long = await createTask(url, 'wait_and_echo', { text: 'x', seconds: 600 });
  await pollTask(url, approval, (t) => t.status === 'input_required');
  worker.child.kill('SIGKILL');
  await worker.stop();

  const before = await timedGet(url, approval);
  expect(before.task).toMatchObject({ status: 'input_required', inputRequests: { approval: expect.any(Object) } });
  expect(before.ms).toBeLessThan(1000);
  await call(url, 'tasks/update', { taskId: approval, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
  await call(url, 'tasks/cancel', { taskId: long });
  // a workflow task now waits for a worker; the answer is read back from the history's end, so
  // the task reads as answered at once (read-your-writes without a worker)
  const pending = await timedGet(url, approval);
  expect(pending.ms).toBeLessThan(1000);
  expect(pending.task.status).toBe('working');
  expect(pending.task.inputRequests).toBeUndefined();
  const fresh = await timedGet(url, await createTask(url, 'wait_and_echo', { text: 'queued', seconds: 0 }));
  expect(fresh.task.status).toBe('working');
  expect(fresh.ms).toBeLessThan(1000);

  await startWorker(temporal.address);
  const [approved, cancelled] = await Promise.all([pollTask(url, approval), pollTask(url, long)]);
  expect(approved.result.content[0].text).toMatch(/was approved/);
  expect(cancelled.status).toBe('cancelled');
  report('no worker', {
    getMsBefore: before.ms,
    getMsWithPendingSignal: pending.ms,
    getMsNeverRun: fresh.ms,
    updatesApplied: 1,
    cancelsApplied: 1,
    lost: 0,
  });
});
