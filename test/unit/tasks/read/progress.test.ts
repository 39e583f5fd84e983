/** The server's rule for reading several activities' progress. */
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { activityRunning, freshestActivityProgress } from '../../../../src/tasks/read/progress';

describe('the server reads several activities: the most recently heartbeated running one speaks', () => {
  const {
    PENDING_ACTIVITY_STATE_STARTED: STARTED,
    PENDING_ACTIVITY_STATE_SCHEDULED: SCHEDULED,
    PENDING_ACTIVITY_STATE_CANCEL_REQUESTED: CANCEL_REQUESTED,
  } = temporal.api.enums.v1.PendingActivityState;
  const at = (s: number) => ({ seconds: Long.fromNumber(1_800_000_000 + s), nanos: 0 });
  // the payloads stand for their decoded value here
  const decode = async (payloads: any) => payloads[0];
  const activity = (state: number, s: number, detail: unknown) => ({
    state,
    lastHeartbeatTime: at(s),
    heartbeatDetails: { payloads: [detail as any] },
  });

  test('the freshest beat wins; waiting attempts, foreign details and undecodable ones do not count', async () => {
    const pending = [
      activity(STARTED, 10, { mcpProgress: { message: 'a', done: 1, total: 2 } }),
      activity(CANCEL_REQUESTED, 20, { mcpProgress: { message: 'b' } }),
      activity(SCHEDULED, 30, { mcpProgress: { message: 'waiting for a retry' } }),
      activity(STARTED, 40, { checkpoint: 9 }),
      activity(STARTED, 50, 'undecodable'),
    ];
    const badDecode = async (payloads: any) => {
      if (payloads[0] === 'undecodable') throw new Error('no codec');
      return payloads[0];
    };
    expect(await freshestActivityProgress(pending, badDecode)).toEqual({
      message: 'b',
      at: new Date((1_800_000_000 + 20) * 1000).toISOString(),
    });
    expect(await freshestActivityProgress([pending[0]], decode)).toMatchObject({ message: 'a (1 of 2)', done: 1, total: 2 });
    expect(await freshestActivityProgress([], decode)).toBeUndefined();
    expect(await freshestActivityProgress(undefined, decode)).toBeUndefined();
  });

  test('a watch re-reads while an activity is scheduled or runs (its start and heartbeats write no event), not without one', () => {
    expect(activityRunning([{ state: STARTED }])).toBe(true);
    expect(activityRunning([{ state: SCHEDULED }])).toBe(true);
    expect(activityRunning([])).toBe(false);
    expect(activityRunning(undefined)).toBe(false);
  });
});
