/** What the store hands its jobs: task ids (192 random bits, validated), its record of its own writes (which PolledTasks looks up), the owner's keyed one-way hash (and MACs of cursors). */
import { performance } from 'node:perf_hooks';
import { isTaskId, mintTaskId, OwnerHasher, TaskWrites } from '../../../src/tasks/store-parts';

test('task ids carry 192 random bits, URL-safe, and validate', () => {
  const ids = new Set(Array.from({ length: 1000 }, mintTaskId));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(isTaskId(id)).toBe(true);
  expect(Buffer.from([...ids][0].slice(5), 'base64url')).toHaveLength(24);
});

test.each([
  undefined,
  42,
  '',
  'task_',
  'task_short',
  `task_${'A'.repeat(33)}`,
  'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/',
  'TASK_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
])('isTaskId rejects %p', (value) => expect(isTaskId(value)).toBe(false));

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

test('equal principals hash equal under one key, differently under another; the principal does not show', () => {
  const a = new OwnerHasher('key-1');
  const hash = a.hash('user:alice')!;
  expect(hash).toMatch(/^o1_[A-Za-z0-9_-]{43}$/);
  expect(new OwnerHasher('key-1').hash('user:alice')).toBe(hash); // another replica with the same key
  expect(new OwnerHasher('key-2').hash('user:alice')).not.toBe(hash);
  expect(a.hash('user:bob')).not.toBe(hash);
  expect(hash).not.toContain('alice');
  expect(a.hash(undefined)).toBeUndefined();
});

test('without a key the hash is still one-way and stable', () => {
  const hash = new OwnerHasher(undefined).hash('user:alice');
  expect(hash).toMatch(/^o1_/);
  expect(new OwnerHasher(undefined).hash('user:alice')).toBe(hash);
  expect(hash).not.toBe(new OwnerHasher('key-1').hash('user:alice'));
});

test('a cursor MAC verifies under its key only, and not for other data; it is not the owner hash', () => {
  const data = Buffer.from('page-2');
  const mac = new OwnerHasher('key-1').mac(data);
  expect(mac).toHaveLength(22);
  expect(new OwnerHasher('key-1').verifyMac(data, mac)).toBe(true);
  expect(new OwnerHasher('key-2').verifyMac(data, mac)).toBe(false);
  expect(new OwnerHasher('key-1').verifyMac(Buffer.from('page-3'), mac)).toBe(false);
  expect(new OwnerHasher('key-1').verifyMac(data, mac.slice(0, 21))).toBe(false); // a shorter MAC, no throw
  expect(new OwnerHasher('key-1').verifyMac(data, '')).toBe(false);
  expect(mac).not.toBe(new OwnerHasher('key-1').hash('page-2')!.slice(3, 25));
});
