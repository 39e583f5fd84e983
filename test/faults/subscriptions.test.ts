/** Subscriptions under faults: a SIGKILLed replica's subscribers resume elsewhere; a Temporal restart only delays notifications. */
import { call, startServe, startWorker, subscribe, type TaskSubscription } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { createTask, report, restartableTemporal, sleep } from './support';

let temporal: Awaited<ReturnType<typeof restartableTemporal>> | undefined;
stopAllAfter(() => temporal?.current());

/** Task notifications until `until` holds for one (returned), or the stream ends (undefined). */
async function readUntil(sub: TaskSubscription, until: (task: any) => boolean, seen: any[] = []): Promise<any> {
  for (let m = await sub.next(60_000); m !== undefined; m = await sub.next(60_000)) {
    if (m.method !== 'notifications/tasks') continue;
    seen.push(m.params);
    if (until(m.params)) return m.params;
  }
  return undefined;
}

test('a SIGKILLed replica: its streams break, and a subscription on another replica starts from the current state', async () => {
  temporal = await restartableTemporal();
  await startWorker(temporal.address);
  const [first, second] = await Promise.all([startServe(temporal.address), startServe(temporal.address)]);
  const approval = await createTask(first.url, 'approve_expense', { amount: 5, description: 'lunch' });
  const provision = await createTask(first.url, 'provision_environment', { name: 'env-f', steps: 4, stepMs: 1500 });
  const sub = await subscribe(first.url, [approval, provision]);
  expect((await sub.next()).params.notifications.taskIds).toEqual([approval, provision]);
  await readUntil(sub, (t) => t.taskId === approval && t.status === 'input_required');
  await readUntil(sub, (t) => t.taskId === provision && /step 2\/4/.test(t.statusMessage ?? ''));

  first.proc.child.kill('SIGKILL');
  await first.proc.stop();
  const lastOnFirst = await sub.rest(10_000).catch(() => []);
  expect(lastOnFirst.some((m) => m.result)).toBe(false); // broken, not ended: the client re-listens

  const resumed = await subscribe(second.url, [approval, provision]);
  expect((await resumed.next()).params.notifications.taskIds).toEqual([approval, provision]);
  const current = [(await resumed.next()).params, (await resumed.next()).params];
  expect(current.find((t) => t.taskId === approval)).toMatchObject({
    status: 'input_required',
    inputRequests: { approval: expect.any(Object) },
  });
  expect(current.find((t) => t.taskId === provision)).toMatchObject({
    status: 'working',
    statusMessage: expect.stringMatching(/^step [234]\/4/),
  });
  await call(second.url, 'tasks/update', {
    taskId: approval,
    inputResponses: { approval: { action: 'accept', content: { approved: true } } },
  });
  const rest = await resumed.rest(60_000);
  const terminal = rest.filter((m) => m.params?.status === 'completed').map((m) => m.params.taskId);
  expect(terminal.sort()).toEqual([approval, provision].sort());
  expect(rest.at(-1).result.resultType).toBe('complete');
  report('subscription failover', { subscribed: 2, completed: terminal.length, lost: 0 });
});

test('Temporal restarts under a subscription: the stream stays open and the changes arrive after it', async () => {
  temporal ??= await restartableTemporal();
  await startWorker(temporal.address);
  const { url } = await startServe(temporal.address);
  const ids = await Promise.all(Array.from({ length: 3 }, (_, i) => createTask(url, 'wait_and_echo', { text: `t${i}`, seconds: 6 })));
  const sub = await subscribe(url, ids);
  expect((await sub.next()).params.notifications.taskIds).toEqual(ids);
  await sleep(1000);
  await temporal.kill();
  await sleep(2000);
  await temporal.restart();
  const messages = await sub.rest(120_000);
  const completed = messages.filter((m) => m.params?.status === 'completed').map((m) => m.params.taskId);
  expect(completed.sort()).toEqual([...ids].sort());
  expect(messages.at(-1).result.resultType).toBe('complete');
  report('subscription across a Temporal restart', { subscribed: 3, completed: completed.length, lost: 0 });
}, 180_000);
