/** When PolledTasks starts watching a polled task: at a read that finds its history where the read before left it. */
import { TaskWrites } from '../../../../src/tasks/store-parts';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';
import { PolledTasks } from '../../../../src/tasks/watch/polled-tasks';
import type { TaskWatcher } from '../../../../src/tasks/watch/task-watcher';

const running = (historyLength: number): TaskSnapshot => ({
  taskId: 't1',
  tool: 'wait_and_echo',
  createdAt: '2026-12-01T00:00:00.000Z',
  lastUpdatedAt: '2026-12-01T00:00:00.000Z',
  ttlMs: 60_000,
  startTtlMs: 60_000,
  state: { status: 'working' },
  historyLength,
});

/** PolledTasks over a store whose reads find these history lengths in turn, and a watcher that counts the watches asked for. */
function polledOver(lengths: number[]) {
  const store = { writes: new TaskWrites(), read: jest.fn(async () => running(lengths.shift()!)) };
  const watched: string[] = [];
  const watcher = {
    watch: async (taskId: string) => {
      watched.push(taskId);
      return { initial: running(0), stop: () => undefined, current: () => undefined };
    },
  } as unknown as TaskWatcher;
  const polled = new PolledTasks(store, watcher, { keepMs: 60_000, maxSubscribedTasks: 10, maxSubscribedTasksPerCaller: 10 });
  return { polled, watched, close: () => polled.close() };
}

test('a task whose history stood still between two reads is watched from the second', async () => {
  const { polled, watched, close } = polledOver([7, 7]);
  await polled.read('t1', undefined);
  expect(watched).toEqual([]);
  await polled.read('t1', undefined);
  expect(watched).toEqual(['t1']);
  close();
});

test('a task whose history moves at every read is not watched (its watch would wake at about every poll), until it stands still', async () => {
  const { polled, watched, close } = polledOver([5, 8, 11, 14, 14]);
  for (let i = 0; i < 4; i++) await polled.read('t1', undefined);
  expect(watched).toEqual([]);
  await polled.read('t1', undefined);
  expect(watched).toEqual(['t1']);
  close();
});
