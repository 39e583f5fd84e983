/**
 * The activity side (`mcp-temporal-tasks/activity`, issue 22 item 4), in the SDK's
 * MockActivityEnvironment: reportProgress heartbeats the contract's shape, heartbeating() keeps
 * beating with it and turns a cancel into an aborted signal, idempotencyKey() is the same on
 * every attempt. And the server's rule for reading several activities' progress.
 */
import { CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import Long from 'long';
import { activityProgressOf, activityProgressText } from '../../src/contract';
import { heartbeating, idempotencyKey, previousProgress, reportProgress } from '../../src/activities';
import { activityRunning, freshestActivityProgress } from '../../src/tasks/activity-progress';

const wf = { workflowExecution: { workflowId: 'task_abc', runId: 'run-1' }, activityId: '3' };

function beatsOf(env: MockActivityEnvironment): unknown[] {
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  return beats;
}

test('reportProgress heartbeats { mcpProgress: { message, done?, total? } }', async () => {
  const env = new MockActivityEnvironment(wf);
  const beats = beatsOf(env);
  await env.run(async () => {
    reportProgress('exporting rows', { done: 4000, total: 10_000 });
    reportProgress('almost there');
  });
  expect(beats).toEqual([{ mcpProgress: { message: 'exporting rows', done: 4000, total: 10_000 } }, { mcpProgress: { message: 'almost there' } }]);
});

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

test('heartbeating() beats at its interval, keeping the progress reported so far', async () => {
  const env = new MockActivityEnvironment({ ...wf, heartbeatTimeoutMs: 100 });
  const beats = beatsOf(env);
  const result = await env.run(() =>
    heartbeating(async () => {
      reportProgress('step 1');
      await new Promise((r) => setTimeout(r, 180)); // interval: half the heartbeat timeout, 50 ms
      return 'done';
    }),
  );
  expect(result).toBe('done');
  expect(beats[0]).toBeUndefined(); // the first beat, before any progress
  const later = beats.slice(2);
  expect(later.length).toBeGreaterThanOrEqual(2);
  expect(later.every((b) => JSON.stringify(b) === JSON.stringify({ mcpProgress: { message: 'step 1' } }))).toBe(true);
});

test('a cancel aborts the signal heartbeating() hands the work (fetch and friends), and the activity ends cancelled', async () => {
  const env = new MockActivityEnvironment({ ...wf, heartbeatTimeoutMs: 100 });
  let seen: AbortSignal | undefined;
  let cleanedUp = false;
  const running = env.run(() =>
    heartbeating(
      (signal) =>
        new Promise<void>((_, reject) => {
          seen = signal;
          // what fetch does with its signal: rejects with the signal's reason (an AbortError or the SDK's CancelledFailure)
          signal.addEventListener('abort', () => {
            cleanedUp = true;
            reject(signal.reason);
          });
        }),
      { intervalMs: 20 },
    ),
  );
  await new Promise((r) => setTimeout(r, 50));
  env.cancel('CANCELLED');
  await expect(running).rejects.toBeInstanceOf(CancelledFailure);
  expect(seen?.aborted).toBe(true);
  expect(cleanedUp).toBe(true); // the work was awaited: its clean-up ran before the activity reported back
});

test('idempotencyKey() is the same on every attempt of a step, differs between steps, runs and scopes', async () => {
  const keyOn = (info: object, scope?: string) => new MockActivityEnvironment({ ...wf, ...info }).run(async () => idempotencyKey(scope));
  const first = await keyOn({ attempt: 1 });
  expect(first).toBe('task_abc:run-1:3');
  expect(await keyOn({ attempt: 7 })).toBe(first); // a retry, e.g. after the worker was SIGKILLed
  expect(await keyOn({ activityId: '4' })).not.toBe(first);
  expect(await keyOn({ workflowExecution: { workflowId: 'task_abc', runId: 'run-2' } })).not.toBe(first); // continue-as-new restarts ids at 1
  expect(await keyOn({}, 'charge')).toBe('task_abc:run-1:3:charge');
});

test('previousProgress() is the last attempt\'s progress, a checkpoint to resume from', async () => {
  const resumed = await new MockActivityEnvironment({ ...wf, attempt: 2, heartbeatDetails: { mcpProgress: { message: 'rows', done: 3000 } } }).run(async () => previousProgress());
  expect(resumed).toEqual({ message: 'rows', done: 3000 });
  expect(await new MockActivityEnvironment(wf).run(async () => previousProgress())).toBeUndefined();
});

describe('the server reads several activities: the most recently heartbeated running one speaks', () => {
  const { PENDING_ACTIVITY_STATE_STARTED: STARTED, PENDING_ACTIVITY_STATE_SCHEDULED: SCHEDULED, PENDING_ACTIVITY_STATE_CANCEL_REQUESTED: CANCEL_REQUESTED } =
    temporal.api.enums.v1.PendingActivityState;
  const at = (s: number) => ({ seconds: Long.fromNumber(1_800_000_000 + s), nanos: 0 });
  // the payloads stand for their decoded value here
  const decode = async (payloads: any) => payloads[0];
  const activity = (state: number, s: number, detail: unknown) => ({ state, lastHeartbeatTime: at(s), heartbeatDetails: { payloads: [detail as any] } });

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
    expect(await freshestActivityProgress(pending, badDecode)).toEqual({ message: 'b', at: new Date((1_800_000_000 + 20) * 1000).toISOString() });
    expect(await freshestActivityProgress([pending[0]], decode)).toMatchObject({ message: 'a (1 of 2)' });
    expect(await freshestActivityProgress([], decode)).toBeUndefined();
    expect(await freshestActivityProgress(undefined, decode)).toBeUndefined();
  });

  test('a watch re-reads while an attempt runs, not while activities only wait', () => {
    expect(activityRunning([{ state: STARTED }])).toBe(true);
    expect(activityRunning([{ state: SCHEDULED }])).toBe(false);
    expect(activityRunning(undefined)).toBe(false);
  });
});
