/** Case 5: Temporal down: clear -32603 errors in bounded time, never "task not found"; recovers by itself. */
import { pollTask, rpc, startServe, startWorker, subscribe } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { createTask, report, restartableTemporal, sleep } from './support';

let temporal: Awaited<ReturnType<typeof restartableTemporal>> | undefined;
stopAllAfter(() => temporal?.current());

test('Temporal unreachable: tools/call and tasks/get answer -32603 within the bound, then recover', async () => {
  temporal = await restartableTemporal();
  const { address } = temporal;
  await startWorker(address);
  const { url } = await startServe(address, ['--temporal-timeout-ms', '2000']);
  const taskId = await createTask(url, 'wait_and_echo', { text: 'survives', seconds: 3 });

  await temporal.kill();

  let started = Date.now();
  const create = await rpc(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 1 } });
  const createMs = Date.now() - started;
  expect(create.body.result).toBeUndefined();
  expect(create.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/Temporal\) is unavailable/) });
  expect(createMs).toBeLessThan(10_000);

  started = Date.now();
  const get = await rpc(url, 'tasks/get', { taskId });
  expect(get.body.error.code).toBe(-32603);
  expect(Date.now() - started).toBeLessThan(10_000);
  const update = await rpc(url, 'tasks/update', { taskId, inputResponses: { approval: { action: 'decline' } } });
  expect(update.body.error.code).toBe(-32603);
  // the same through task handles, for a caller without Tasks: -32603, never "no such task"
  for (const [name, args] of [
    ['wait_and_echo', { text: 'x', seconds: 1 }],
    ['task_wait', { taskId }],
    ['task_cancel', { taskId }],
    ['task_respond', { taskId, responses: { question: { action: 'decline' } } }],
  ] as const) {
    started = Date.now();
    const plain = await rpc(url, 'tools/call', { name, arguments: args }, { capabilities: {} });
    expect(plain.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/Temporal\) is unavailable/) });
    expect(Date.now() - started).toBeLessThan(10_000);
  }
  started = Date.now();
  const listen = await subscribe(url, [taskId]);
  expect(listen.error).toMatchObject({ code: -32603, message: expect.stringMatching(/Temporal\) is unavailable/) });
  expect(Date.now() - started).toBeLessThan(10_000);

  await sleep(500);
  await temporal.restart();
  const done = await pollTask(url, taskId, undefined, 90_000);
  expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'survives' }] } });
  const again = await createTask(url, 'wait_and_echo', { text: 'after', seconds: 0 });
  expect((await pollTask(url, again)).result.content[0].text).toBe('after');
  report('temporal unreachable', { createErrorMs: createMs, createResultsWhileDown: 0, notFoundWhileDown: 0, lost: 0 });
});
