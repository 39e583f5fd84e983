/** The server's rule for reading several activities' progress. */
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { activityRunning, freshestActivityProgress, progressFrom, runningState } from '../../../../src/tasks/read/progress';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';
import type { HistoryEvent } from '../../../../src/tasks/watch/history-long-poll';

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

describe("a watched task's progress update, from its memo event (progressFrom)", () => {
  const progress = {
    status: 'input_required',
    statusMessage: 'asking',
    lastUpdatedAt: '2026-12-06T10:00:01.000Z',
    inputRequests: { q: { method: 'elicitation/create' } },
  };
  const event = {
    workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { mcpProgress: progress as any } } },
  } as HistoryEvent;
  // the payload stands for its decoded value here
  const decode = async (payload: unknown) => payload;
  const last: TaskSnapshot = {
    taskId: 't',
    tool: 'x',
    createdAt: '2026-12-06T10:00:00.000Z',
    lastUpdatedAt: '2026-12-06T10:00:00.500Z',
    ttlMs: 1000,
    startTtlMs: 1000,
    statusMessage: 'working on it',
    state: { status: 'working' },
    historyLength: 8,
    progress: { done: 1, total: 2 },
  };

  test('the running task as a read would answer it: state, message and time from the memo, the history length of the page', async () => {
    expect(await progressFrom(last, event, 11, decode)).toEqual({
      ...last,
      progress: undefined,
      statusMessage: 'asking',
      lastUpdatedAt: progress.lastUpdatedAt,
      state: { status: 'input_required', inputRequests: progress.inputRequests },
      historyLength: 11,
    });
    const working = {
      ...event,
      workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { mcpProgress: { ...progress, status: 'working' } as any } } },
    };
    expect((await progressFrom(last, working as HistoryEvent, 11, decode))?.state).toEqual({ status: 'working' });
  });

  test('none where the task depends on more than its memo, has ended, or the event holds no progress', async () => {
    for (const more of [{ activityRunning: true }, { stuck: true }, { cancelRequested: true }, { state: { status: 'cancelled' } as const }])
      expect(await progressFrom({ ...last, ...more }, event, 11, decode)).toBeUndefined();
    const other = { workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { somethingElse: {} as any } } } } as HistoryEvent;
    expect(await progressFrom(last, other, 11, decode)).toBeUndefined();
  });
});

describe("a running task's state from its progress (runningState, both reads)", () => {
  const inputRequests = {
    approval: { method: 'elicitation/create' as const, params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } } },
  };
  const waiting = { status: 'input_required' as const, lastUpdatedAt: '2026-12-06T00:00:00.000Z', inputRequests };

  it('waits for input while the workflow asks for it, and works once a cancel was asked for', () => {
    expect(runningState(waiting, false)).toEqual({ status: 'input_required', inputRequests });
    expect(runningState(waiting, true)).toEqual({ status: 'working' });
    expect(runningState({ ...waiting, status: 'working', inputRequests: {} }, false)).toEqual({ status: 'working' });
  });
});
