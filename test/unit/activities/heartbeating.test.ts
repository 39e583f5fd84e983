/**
 * heartbeating() (`mcp-temporal-tasks/activity`), in the SDK's MockActivityEnvironment: it keeps
 * beating with the progress reported so far and turns a cancel into an aborted signal.
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeating } from '../../../src/activities/heartbeating';
import { reportProgress } from '../../../src/activities/progress';

const wf = { workflowExecution: { workflowId: 'task_abc', runId: 'run-1' }, activityId: '3' };

function beatsOf(env: MockActivityEnvironment): unknown[] {
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  return beats;
}

test('heartbeating() beats at its interval, keeping the progress reported so far', async () => {
  const env = new MockActivityEnvironment({ ...wf, heartbeatTimeoutMs: 100 });
  const beats = beatsOf(env);
  // the work ends once four beats came (interval: half the heartbeat timeout), however busy the machine
  const fourBeats = new Promise<void>((resolve) => env.on('heartbeat', () => beats.length >= 4 && resolve()));
  const result = await env.run(() =>
    heartbeating(async () => {
      reportProgress('step 1');
      await fourBeats;
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

test("heartbeating()'s beats keep the checkpoint the work heartbeats itself (no plugin needed once it runs)", async () => {
  const env = new MockActivityEnvironment({ ...wf, heartbeatTimeoutMs: 100 });
  const beats = beatsOf(env);
  const later = new Promise<void>((resolve) => env.on('heartbeat', () => beats.length >= 4 && resolve()));
  await env.run(() =>
    heartbeating(async () => {
      Context.current().heartbeat({ offset: 500 });
      await later;
    }),
  );
  expect(beats.slice(0, 2)).toEqual([undefined, { offset: 500 }]);
  expect(beats.slice(2).every((b) => JSON.stringify(b) === JSON.stringify({ offset: 500 }))).toBe(true);
});
