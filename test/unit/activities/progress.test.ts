/** reportProgress and previousProgress (`mcp-temporal-tasks/activity`), in the SDK's MockActivityEnvironment. */
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { previousProgress, reportProgress } from '../../../src/activities/progress';

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
  expect(beats).toEqual([
    { mcpProgress: { message: 'exporting rows', done: 4000, total: 10_000 } },
    { mcpProgress: { message: 'almost there' } },
  ]);
});

test("previousProgress() is the last attempt's progress, a checkpoint to resume from", async () => {
  const resumed = await new MockActivityEnvironment({
    ...wf,
    attempt: 2,
    heartbeatDetails: { mcpProgress: { message: 'rows', done: 3000 } },
  }).run(async () => previousProgress());
  expect(resumed).toEqual({ message: 'rows', done: 3000 });
  expect(await new MockActivityEnvironment(wf).run(async () => previousProgress())).toBeUndefined();
});

test("reportProgress keeps the other keys of the last details: the previous attempt's checkpoint, then the activity's own", async () => {
  const env = new MockActivityEnvironment({ ...wf, attempt: 2, heartbeatDetails: { offset: 500 } });
  const beats = beatsOf(env);
  await env.run(async () => {
    reportProgress('copying rows', { done: 500 });
    Context.current().heartbeat({ offset: 800, mcpProgress: { message: 'copying rows', done: 800 } });
    reportProgress('copying rows', { done: 900 });
  });
  expect(beats).toEqual([
    { offset: 500, mcpProgress: { message: 'copying rows', done: 500 } },
    { offset: 800, mcpProgress: { message: 'copying rows', done: 800 } },
    { offset: 800, mcpProgress: { message: 'copying rows', done: 900 } },
  ]);
});

test('reportProgress refuses to erase details that are not an object, saying what to heartbeat instead', async () => {
  for (const details of [500, [1, 2], 'row 7']) {
    const env = new MockActivityEnvironment({ ...wf, attempt: 2, heartbeatDetails: details });
    const beats = beatsOf(env);
    await expect(env.run(async () => reportProgress('copying'))).rejects.toThrow(
      `reportProgress: the activity's last heartbeat details (${JSON.stringify(details)}) are not an object, so the progress cannot be kept beside them; heartbeat an object (e.g. { offset: 500 }) instead`,
    );
    expect(beats).toEqual([]);
  }
});
