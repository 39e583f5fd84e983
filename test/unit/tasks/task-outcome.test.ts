/** The end table (docs/contract.md, "The end of a task"): Temporal's close status alone decides. */
import { endStatusOf } from '../../../src/tasks/task-outcome';

test.each([
  ['COMPLETED', 'completed'],
  ['CANCELLED', 'cancelled'],
  ['FAILED', 'failed'],
  ['TERMINATED', 'failed'],
  ['TIMED_OUT', 'failed'],
])('%s ends the task %s', (closeStatus, end) => {
  expect(endStatusOf(closeStatus)).toBe(end);
});

test.each(['RUNNING', 'PAUSED', 'CONTINUED_AS_NEW', 'UNSPECIFIED', 'constructor', '__proto__'])('%s is no end', (status) => {
  expect(endStatusOf(status)).toBeUndefined();
});
