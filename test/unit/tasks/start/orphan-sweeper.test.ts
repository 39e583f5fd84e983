import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { logger } from '../../../../src/tasks/logging';
import { cancelOutcomeOf, type OrphanCancelOutcome, OrphanSweeper } from '../../../../src/tasks/start/orphan-sweeper';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fast = { minDelayMs: 10, maxDelayMs: 40, inFlightMs: 50, watchMs: 10_000, concurrency: 4 };

/** A fake Temporal: `answer` decides each cancel; every call is counted, with the most in flight at once. */
function fakeTemporal(answer: (taskId: string) => OrphanCancelOutcome) {
  const seen = { calls: [] as string[], inFlight: 0, maxInFlight: 0 };
  const cancel = async (taskId: string) => {
    seen.calls.push(taskId);
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    await sleep(2);
    seen.inFlight--;
    const outcome = answer(taskId);
    if (outcome === 'unanswered') throw new Error('UNAVAILABLE');
    return outcome;
  };
  return { seen, cancel };
}

let warn: jest.SpyInstance;
beforeEach(() => (warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined)));
afterEach(() => warn.mockRestore());
const warned = (event: string) => warn.mock.calls.filter(([fields]) => fields.event === event).map(([fields]) => fields);

test('while Temporal does not answer, a sweep asks once, not once per orphan, and backs off', async () => {
  let up = false;
  const temporal = fakeTemporal(() => (up ? 'cancelled' : 'unanswered'));
  const sweeper = new OrphanSweeper(temporal.cancel, fast);
  for (let i = 0; i < 50; i++) sweeper.add(`task_${i}`);
  await sleep(200);
  expect(temporal.seen.maxInFlight).toBe(1);
  expect(new Set(temporal.seen.calls)).toEqual(new Set(['task_0'])); // only the oldest is asked
  expect(temporal.seen.calls.length).toBeLessThan(10); // 10, 20, 40, 40 ms…: not 200 ms / 10 ms
  up = true;
  await sleep(150);
  expect(sweeper.size).toBe(0);
  expect(sweeper.active).toBe(false); // nothing tracked, no timer left
  expect(temporal.seen.maxInFlight).toBeLessThanOrEqual(fast.concurrency);
  expect(warned('task.orphan.cancelled')).toHaveLength(50);
});

test('the cap drops the oldest orphan and says so', () => {
  const sweeper = new OrphanSweeper(fakeTemporal(() => 'unanswered').cancel, { ...fast, maxTracked: 3 });
  for (const id of ['a', 'b', 'c', 'd', 'e']) sweeper.add(id);
  expect(sweeper.size).toBe(3);
  expect(warned('task.orphan.dropped').map((f) => f.taskId)).toEqual(['a', 'b']);
  sweeper.stop();
});

test('an orphan Temporal keeps answering NotFound for is taken as never started; one that appears late is cancelled', async () => {
  let appeared = false;
  const temporal = fakeTemporal((id) => (id === 'late' && appeared ? 'cancelled' : 'not-found'));
  const sweeper = new OrphanSweeper(temporal.cancel, fast);
  sweeper.add('never');
  sweeper.add('late');
  await sleep(30);
  appeared = true;
  await sleep(200);
  expect(sweeper.size).toBe(0);
  expect(warned('task.orphan.cancelled').map((f) => f.taskId)).toEqual(['late']);
  expect(temporal.seen.calls.filter((id) => id === 'never').length).toBeGreaterThan(1);
});

test('an orphan past its watch is given up with a log', async () => {
  const sweeper = new OrphanSweeper(fakeTemporal(() => 'unanswered').cancel, { ...fast, watchMs: 30 });
  sweeper.add('stuck');
  await sleep(150);
  expect(sweeper.size).toBe(0);
  expect(warned('task.orphan.given_up').map((f) => f.taskId)).toEqual(['stuck']);
});

test('stop(): no sweep after it, what was tracked is logged, later adds are ignored', async () => {
  const temporal = fakeTemporal(() => 'unanswered');
  const sweeper = new OrphanSweeper(temporal.cancel, fast);
  sweeper.add('x');
  sweeper.add('y');
  sweeper.stop();
  sweeper.add('z');
  await sleep(100);
  expect(temporal.seen.calls).toEqual([]);
  expect(sweeper.active).toBe(false);
  expect(warned('task.orphan.abandoned')).toEqual([expect.objectContaining({ count: 2, taskIds: ['x', 'y'] })]);
});

test('an orphan Temporal refuses to cancel is dropped with the reason; the others are still cancelled', async () => {
  const sweeper = new OrphanSweeper(
    async (id): Promise<OrphanCancelOutcome> => (id === 'bad' ? { refused: 'PERMISSION_DENIED' } : 'cancelled'),
    fast,
  );
  sweeper.add('bad');
  sweeper.add('good');
  await sleep(100);
  expect(sweeper.size).toBe(0);
  expect(warned('task.orphan.refused')).toEqual([expect.objectContaining({ taskId: 'bad', reason: 'PERMISSION_DENIED' })]);
  expect(warned('task.orphan.cancelled').map((f) => f.taskId)).toEqual(['good']);
});

test('a failed cancel: NotFound, silence (a deadline, UNAVAILABLE, no status at all) or a refusal to drop', () => {
  const grpc = (code: number, message: string) => new ServiceError(message, { cause: Object.assign(new Error(message), { code }) });
  expect(cancelOutcomeOf(new WorkflowNotFoundError('gone', 'task_x', undefined))).toBe('not-found');
  expect(cancelOutcomeOf(grpc(14, 'UNAVAILABLE: connection refused'))).toBe('unanswered');
  expect(cancelOutcomeOf(grpc(4, 'DEADLINE_EXCEEDED'))).toBe('unanswered');
  expect(cancelOutcomeOf(new Error('socket hang up'))).toBe('unanswered');
  expect(cancelOutcomeOf(grpc(7, 'PERMISSION_DENIED: no'))).toEqual({ refused: 'PERMISSION_DENIED: no' });
});
