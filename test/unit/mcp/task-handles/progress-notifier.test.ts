/** The progress notifications of a waiting call: when they go out, and what progress/total say. */
import { PROGRESS_KEEPALIVE_MS, ProgressNotifier, type ProgressParams } from '../../../../src/mcp/task-handles/progress-notifier';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

const base: TaskSnapshot = {
  taskId: 'task_X',
  tool: 'export_report',
  createdAt: '2026-01-01T00:00:00Z',
  lastUpdatedAt: '2026-01-01T00:00:00Z',
  ttlMs: 1000,
  startTtlMs: 1000,
  state: { status: 'working' },
};
const at = (statusMessage?: string, progress?: TaskSnapshot['progress']): TaskSnapshot => ({ ...base, statusMessage, progress });

function notifier(): { sent: ProgressParams[]; progress: ProgressNotifier } {
  const sent: ProgressParams[] = [];
  return { sent, progress: new ProgressNotifier('tok', async (p) => void sent.push(p)) };
}

afterEach(() => jest.useRealTimers());

test('one notification per change, none for the same state again; each names its task', () => {
  const { sent, progress } = notifier();
  progress.onState(at('starting'));
  progress.onState(at('starting'));
  progress.onState(at('copying'));
  expect(sent.map((p) => [p.progress, p.message])).toEqual([
    [1, 'starting'],
    [2, 'copying'],
  ]);
  expect(sent[0]).toMatchObject({ progressToken: 'tok', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'task_X' } } });
  expect(sent[0].total).toBeUndefined();
});

test("done/total: progress is the activity's count, and a second activity counting from zero adds to the first", () => {
  const { sent, progress } = notifier();
  progress.onState(at('rows (100 of 300)', { done: 100, total: 300 }));
  progress.onState(at('rows (300 of 300)', { done: 300, total: 300 }));
  progress.onState(at('files (0 of 10)', { done: 0, total: 10 }));
  progress.onState(at('files (5 of 10)', { done: 5, total: 10 }));
  expect(sent.map((p) => [p.progress, p.total])).toEqual([
    [100, 300],
    [300, 300],
    [300.001, 310],
    [305, 310],
  ]);
});

test('keep-alives while nothing changes: progress still grows, a little; none before the first state, none after stop', () => {
  jest.useFakeTimers();
  const { sent, progress } = notifier();
  progress.start();
  jest.advanceTimersByTime(PROGRESS_KEEPALIVE_MS);
  expect(sent).toHaveLength(0);
  progress.onState(at('rows (10 of 20)', { done: 10, total: 20 }));
  jest.advanceTimersByTime(2 * PROGRESS_KEEPALIVE_MS);
  expect(sent.map((p) => p.progress)).toEqual([10, 10.001, 10.002]);
  expect(sent[2]).toMatchObject({ total: 20, message: 'rows (10 of 20)' });
  progress.stop();
  jest.advanceTimersByTime(2 * PROGRESS_KEEPALIVE_MS);
  expect(sent).toHaveLength(3);
});

test('a total already passed (keep-alives at the end of a count) is left out rather than below progress', () => {
  jest.useFakeTimers();
  const { sent, progress } = notifier();
  progress.start();
  progress.onState(at('rows (20 of 20)', { done: 20, total: 20 }));
  jest.advanceTimersByTime(PROGRESS_KEEPALIVE_MS);
  expect(sent[1].progress).toBe(20.001);
  expect(sent[1].total).toBeUndefined();
  progress.stop();
});

test('a failed send is logged, never thrown into the wait', async () => {
  const progress = new ProgressNotifier('tok', () => Promise.reject(new Error('stream closed')));
  expect(() => progress.onState(at('x'))).not.toThrow();
  await new Promise((r) => setImmediate(r));
});
