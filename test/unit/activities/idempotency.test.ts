/** idempotencyKey() (`mcp-temporal-tasks/activity`): the same on every attempt of a step. */
import { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ORIGINAL_RUN_HEADER } from '../../../src/contract';
import { idempotencyKey, recordOriginalRun } from '../../../src/activities/idempotency';

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

test("idempotencyKey() takes the run from the runtime's header (a reset keeps it), the runId without a usable one", async () => {
  const keyWith = (header: unknown) =>
    new MockActivityEnvironment(wf).run(async () => {
      if (header !== undefined) recordOriginalRun(Context.current(), { [ORIGINAL_RUN_HEADER]: defaultPayloadConverter.toPayload(header) });
      return idempotencyKey();
    });
  expect(await keyWith('run-0')).toBe('task_abc:run-0:3');
  expect(await keyWith(undefined)).toBe('task_abc:run-1:3'); // a worker without McpTasksPlugin
  expect(await keyWith(42)).toBe('task_abc:run-1:3'); // not a run id: ignored
  expect(await keyWith('')).toBe('task_abc:run-1:3');
});
