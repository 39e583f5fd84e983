/** idempotencyKey() (`mcp-temporal-tasks/activity`): the same on every attempt of a step. */
import { MockActivityEnvironment } from '@temporalio/testing';
import { idempotencyKey } from '../../../src/activities/idempotency';

const wf = { workflowExecution: { workflowId: 'task_abc', runId: 'run-1' }, activityId: '3' };

test('idempotencyKey() is the same on every attempt of a step, differs between steps, runs and scopes', async () => {
  const keyOn = (info: object, scope?: string) => new MockActivityEnvironment({ ...wf, ...info }).run(async () => idempotencyKey(scope));
  const first = await keyOn({ attempt: 1 });
  expect(first).toBe('task_abc:run-1:3');
  expect(await keyOn({ attempt: 7 })).toBe(first); // a retry, e.g. after the worker was SIGKILLed
  expect(await keyOn({ activityId: '4' })).not.toBe(first);
  expect(await keyOn({ workflowExecution: { workflowId: 'task_abc', runId: 'run-2' } })).not.toBe(first); // continue-as-new restarts ids at 1
  expect(await keyOn({}, 'charge')).toBe('task_abc:run-1:3:charge');
});
