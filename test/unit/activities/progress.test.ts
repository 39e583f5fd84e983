/** reportProgress and previousProgress (`mcp-temporal-tasks/activity`), in the SDK's MockActivityEnvironment. */
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
  expect(beats).toEqual([{ mcpProgress: { message: 'exporting rows', done: 4000, total: 10_000 } }, { mcpProgress: { message: 'almost there' } }]);
});

test('previousProgress() is the last attempt\'s progress, a checkpoint to resume from', async () => {
  const resumed = await new MockActivityEnvironment({ ...wf, attempt: 2, heartbeatDetails: { mcpProgress: { message: 'rows', done: 3000 } } }).run(async () => previousProgress());
  expect(resumed).toEqual({ message: 'rows', done: 3000 });
  expect(await new MockActivityEnvironment(wf).run(async () => previousProgress())).toBeUndefined();
});
