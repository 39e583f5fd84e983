import { TerminalTaskCache } from '../../../../src/tasks/read/terminal-cache';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

const task = (taskId: string, text = 'x'): TaskSnapshot => ({
  taskId,
  tool: 't',
  createdAt: '2026-12-01T00:00:00.000Z',
  lastUpdatedAt: '2026-12-01T00:00:01.000Z',
  ttlMs: 1000,
  state: { status: 'completed', result: { content: [{ type: 'text', text }] } },
});

test('keeps the most recently used entries within its bound', () => {
  const cache = new TerminalTaskCache(2);
  cache.put(task('a'));
  cache.put(task('b'));
  expect(cache.get('a')?.taskId).toBe('a'); // a is now the most recent
  cache.put(task('c'));
  expect(cache.get('b')).toBeUndefined();
  expect(cache.get('a')?.taskId).toBe('a');
  expect(cache.get('c')?.taskId).toBe('c');
});

const failed = (taskId: string, message: string): TaskSnapshot => ({
  taskId,
  tool: 't',
  createdAt: '2026-12-01T00:00:00.000Z',
  lastUpdatedAt: '2026-12-01T00:00:01.000Z',
  ttlMs: 1000,
  state: { status: 'failed', error: { code: -32603, message } },
  statusMessage: message,
});

test('is bounded in bytes, failed entries included', () => {
  const cache = new TerminalTaskCache(1000, 20_000, 10_000);
  for (let i = 0; i < 100; i++) cache.put(failed(`f${i}`, 'e'.repeat(4_000)));
  expect(cache.bytes).toBeLessThanOrEqual(20_000);
  expect(cache.size).toBeLessThan(5);
  expect(cache.get('f99')?.taskId).toBe('f99'); // the newest stay
  expect(cache.get('f0')).toBeUndefined();
});

test('a failed entry larger than one entry may be is not kept', () => {
  const cache = new TerminalTaskCache(10, 1_000_000, 1_000);
  cache.put(failed('big', 'e'.repeat(5_000)));
  expect(cache.get('big')).toBeUndefined();
  expect(cache.bytes).toBe(0);
});

test('putting the same task twice counts its bytes once', () => {
  const cache = new TerminalTaskCache();
  cache.put(task('a'));
  const once = cache.bytes;
  cache.put(task('a'));
  expect(cache.bytes).toBe(once);
});

test('does not keep large results', () => {
  const cache = new TerminalTaskCache(10, 1_000_000, 100);
  cache.put(task('big', 'y'.repeat(500)));
  expect(cache.get('big')).toBeUndefined();
});
