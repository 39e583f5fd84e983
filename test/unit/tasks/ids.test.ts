/** The identifiers the store writes: task ids (192 random bits, validated) and the owner's keyed one-way hash (and MACs of cursors). */
import { isTaskId, mintTaskId, OwnerHasher } from '../../../src/tasks/ids';

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
