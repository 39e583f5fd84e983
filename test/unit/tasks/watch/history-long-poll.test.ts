/** Which pages of a run's history a watch may read the task from: its end (completionOf), a progress update (progressAlone). */
import { completionOf, type HistoryEvent, progressAlone } from '../../../../src/tasks/watch/history-long-poll';

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

describe('a progress update alone (progressAlone)', () => {
  const memo = (message: string) =>
    ({ workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { message } } } }) as unknown as HistoryEvent;
  const completedTask = { workflowTaskCompletedEventAttributes: {} } as HistoryEvent;
  const upsert = { upsertWorkflowSearchAttributesEventAttributes: {} } as HistoryEvent;
  const scheduled = { activityTaskScheduledEventAttributes: {} } as HistoryEvent;
  const signaled = { workflowExecutionSignaledEventAttributes: {} } as HistoryEvent;

  test("the last update of a page whose other events leave readers' view alone (workflow tasks, timers, search attributes)", () => {
    const last = memo('second');
    expect(progressAlone([completedTask, timerFired, memo('first'), upsert, last])).toBe(last);
  });

  test('none beside an activity scheduled, a signal, a cancel request or an end; none without an update', () => {
    for (const other of [scheduled, signaled, cancelRequested, failed, completed])
      expect(progressAlone([completedTask, memo('x'), other])).toBeUndefined();
    expect(progressAlone([completedTask, timerFired])).toBeUndefined();
  });
});
