/** The store's record of its own writes, which PolledTasks looks up. */
import { performance } from 'node:perf_hooks';
import { TaskWrites } from '../../../src/tasks/task-writes';

let now = 1_000;
beforeEach(() => jest.spyOn(performance, 'now').mockImplementation(() => now));
afterEach(() => jest.restoreAllMocks());

test('without a reader that asked to keep writes, nothing is kept', () => {
  const writes = new TaskWrites();
  writes.record('a');
  expect(writes.lastAt('a')).toBeUndefined();
});

test('a write is kept for the longest keepMs asked, and its time is the last write', () => {
  const writes = new TaskWrites();
  writes.keepFor(5_000);
  writes.keepFor(1_000);
  writes.record('a');
  now += 2_000;
  writes.record('a');
  writes.record('b');
  expect(writes.lastAt('a')).toBe(now);
  now += 4_000;
  writes.record('c'); // 'a' and 'b' are 4 s old: kept
  expect([writes.lastAt('a'), writes.lastAt('b')]).toEqual([now - 4_000, now - 4_000]);
  now += 2_000;
  writes.record('c'); // now 6 s old: dropped
  expect([writes.lastAt('a'), writes.lastAt('b'), writes.lastAt('c')]).toEqual([undefined, undefined, now]);
});
