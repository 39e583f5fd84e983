/** What a read keeps: finished tasks' snapshots (TerminalTaskCache), and the pacing of describes for tasks the server does not know (MissPacing). */
import { MissPacing } from '../../../../src/tasks/read/miss-pacing';
import { TerminalTaskCache } from '../../../../src/tasks/read/task-reads';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

const task = (taskId: string, text = 'x'): TaskSnapshot => ({
  taskId,
  tool: 't',
  createdAt: '2026-12-01T00:00:00.000Z',
  lastUpdatedAt: '2026-12-01T00:00:01.000Z',
  ttlMs: 1000,
  startTtlMs: 1000,
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
  startTtlMs: 1000,
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

// pacing of describes for tasks the server does not know
test('miss pacing: no floor until enough describes, then their 95th percentile', () => {
  const p = new MissPacing();
  for (let i = 0; i < 10; i++) p.record(5);
  expect(p.floorMs()).toBe(0);
  for (let i = 1; i <= 100; i++) p.record(i);
  expect(p.floorMs()).toBeGreaterThanOrEqual(90);
});

test('the floor follows the last 256 describes and never exceeds 1 s', () => {
  const p = new MissPacing();
  for (let i = 0; i < 16; i++) p.record(5_000);
  expect(p.floorMs()).toBe(1_000); // Temporal was slow: capped
  for (let i = 0; i < 256; i++) p.record(20);
  expect(p.floorMs()).toBe(20); // the slow ones left the window
  for (let i = 0; i < 12; i++) p.record(400); // under 5 % of the window: the slowest few do not set it
  expect(p.floorMs()).toBe(20);
  p.record(400); // one more and they are the 95th percentile
  expect(p.floorMs()).toBe(400);
});

test("once enough describes found a workflow, they alone set the floor (a foreign task's answer takes one of those)", () => {
  const p = new MissPacing();
  for (let i = 0; i < 200; i++) p.record(1, false); // Temporal answers an unknown id fast
  for (let i = 0; i < 8; i++) p.record(4);
  expect(p.floorMs()).toBe(1); // 8 found of 208: too few to count alone, and under 5 % of all
  for (let i = 0; i < 8; i++) p.record(4);
  expect(p.floorMs()).toBe(4); // 16 found: the misses no longer drag the floor down
  for (let i = 0; i < 100; i++) p.record(1, false);
  expect(p.floorMs()).toBe(4);
});

test('pad waits until the floor after the start, and not at all once it has passed', async () => {
  const p = new MissPacing();
  for (let i = 0; i < 20; i++) p.record(80);
  let started = performance.now();
  await p.pad(started);
  expect(performance.now() - started).toBeGreaterThanOrEqual(79);
  started = performance.now() - 500; // the describe itself already took longer than the floor
  // no timer at all: it settles before a zero-delay timer could fire (not a wall-clock bound, which a busy machine breaks)
  const first = await Promise.race([
    p.pad(started).then(() => 'padded'),
    new Promise((r) => setTimeout(() => r('a timer fired first'), 0)),
  ]);
  expect(first).toBe('padded');
});
