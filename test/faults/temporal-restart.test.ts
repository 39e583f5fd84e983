/** Case 3: the Temporal server is SIGKILLed and started again on the same SQLite file. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { createTask, report, restartableTemporal, sleep } from './support';

let temporal: Awaited<ReturnType<typeof restartableTemporal>> | undefined;
stopAllAfter(() => temporal?.current());

test('running tasks resume and finish after a hard Temporal restart; finished ones still answer', async () => {
  temporal = await restartableTemporal();
  const { address } = temporal;
  await startWorker(address);
  const { url } = await startServe(address);
  const done = await createTask(url, 'wait_and_echo', { text: 'before', seconds: 0 });
  await pollTask(url, done);
  const running = await Promise.all([
    ...Array.from({ length: 5 }, (_, i) => createTask(url, 'wait_and_echo', { text: `r-${i}`, seconds: 5 })),
    ...Array.from({ length: 3 }, (_, i) => createTask(url, 'provision_environment', { name: `p-${i}`, steps: 3, stepMs: 1000 })),
  ]);
  await sleep(1000);
  await temporal.kill();
  await sleep(1000);
  await temporal.restart();

  const finished = await Promise.all(running.map((id) => pollTask(url, id, undefined, 120_000)));
  expect(finished.map((t) => t.status)).toEqual(Array(8).fill('completed'));
  expect(finished.slice(0, 5).map((t) => t.result.content[0].text)).toEqual(['r-0', 'r-1', 'r-2', 'r-3', 'r-4']);
  expect(await call(url, 'tasks/get', { taskId: done })).toMatchObject({ status: 'completed', result: { content: [{ text: 'before' }] } });
  report('temporal restart', { started: 9, completed: finished.length + 1, lost: 0 });
});
