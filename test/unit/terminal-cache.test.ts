import { TerminalTaskCache } from '../../src/tasks/terminal-cache';
import type { TaskSnapshot } from '../../src/tasks/task-snapshot';

const task = (taskId: string, text = 'x'): TaskSnapshot => ({
  taskId, tool: 't', createdAt: '2026-12-01T00:00:00.000Z', lastUpdatedAt: '2026-12-01T00:00:01.000Z', ttlMs: 1000,
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

test('does not keep large results', () => {
  const cache = new TerminalTaskCache(10, 100);
  cache.put(task('big', 'y'.repeat(500)));
  expect(cache.get('big')).toBeUndefined();
});
