/** Which final page of a run's history a watch may read the task's end from (completionOf). */
import { completionOf, type HistoryEvent } from '../../../../src/tasks/watch/history-long-poll';

const completed = { workflowExecutionCompletedEventAttributes: { result: { payloads: [] } } } as HistoryEvent;
const timerFired = { timerFiredEventAttributes: { timerId: '1' } } as HistoryEvent;
const cancelRequested = { workflowExecutionCancelRequestedEventAttributes: { cause: 'tasks/cancel' } } as HistoryEvent;
const failed = { workflowExecutionFailedEventAttributes: {} } as HistoryEvent;

test('a page that ends with the completion gives it', () => {
  expect(completionOf([timerFired, completed])).toBe(completed);
});

test('a cancel request in the same page (a cancel racing the completion): none, so the task is read from Temporal', () => {
  expect(completionOf([cancelRequested, timerFired, completed])).toBeUndefined();
});

test('other ends, and a page that does not end the run: none', () => {
  expect(completionOf([timerFired, failed])).toBeUndefined();
  expect(completionOf([completed, timerFired])).toBeUndefined();
  expect(completionOf([])).toBeUndefined();
});
