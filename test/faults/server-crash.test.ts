/** Case 2: tasks created on one `serve` process are served by another after a SIGKILL. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

test('get, update and cancel work on a new server after the first one is SIGKILLed', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  const first = await startServe(temporal.address);
  const approval = await createTask(first.url, 'approve_expense', { amount: 10, description: 'cab' });
  const long = await createTask(first.url, 'wait_and_echo', { text: 'long', seconds: 600 });
  const short = await createTask(first.url, 'wait_and_echo', { text: 'short', seconds: 2 });
  await pollTask(first.url, approval, (t) => t.status === 'input_required');
  first.proc.child.kill('SIGKILL');
  await first.proc.stop();

  const second = await startServe(temporal.address);
  expect(second.url).not.toBe(first.url);
  expect((await call(second.url, 'tasks/get', { taskId: approval })).status).toBe('input_required');
  await call(second.url, 'tasks/update', {
    taskId: approval,
    inputResponses: { approval: { action: 'accept', content: { approved: true } } },
  });
  await call(second.url, 'tasks/cancel', { taskId: long });
  const results = await Promise.all([approval, long, short].map((id) => pollTask(second.url, id)));
  expect(results.map((t) => t.status)).toEqual(['completed', 'cancelled', 'completed']);
  expect(results[0].result.content[0].text).toMatch(/approved/);
  expect(results[2].result.content[0].text).toBe('short');
  report('server crash', { started: 3, completed: 2, cancelled: 1, lost: 0 });
});
