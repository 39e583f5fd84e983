/** The activity progress contract: how any language's heartbeat reads on the wire. */
import { activityProgressOf, activityProgressText } from '../../src/contract';

test('the progress reads "message (done of total)" on the wire, whatever language wrote it', () => {
  expect(activityProgressText({ message: 'exporting rows', done: 4000, total: 10_000 })).toBe('exporting rows (4,000 of 10,000)');
  expect(activityProgressText({ message: 'copied', done: 12 })).toBe('copied (12)');
  expect(activityProgressText({ message: 'warming up' })).toBe('warming up');
  // what Python's json or Go's encoding/json write: extra keys kept out, bad counts dropped
  expect(activityProgressOf({ mcpProgress: { message: 'm', done: 1.5, total: 'x' }, checkpoint: 7 })).toEqual({ message: 'm', done: 1.5 });
  expect(activityProgressOf({ mcpProgress: { done: 1 } })).toBeUndefined();
  expect(activityProgressOf(42)).toBeUndefined();
  expect(activityProgressOf(null)).toBeUndefined();
});
