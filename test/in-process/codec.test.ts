/** A payload codec (docs/examples/encryption-codec.js) keeps arguments and results out of Temporal's history in clear. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { call, pollTask } from '../support/mcp';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

// the worker and the server load the codec module as `worker` and `serve` do (loadDataConverter reads these)
const env = {
  TEMPORAL_PAYLOAD_CODEC: path.join(ROOT, 'docs/examples/encryption-codec.js'),
  MCP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
};
const stack = useStack({ workerEnv: env });

test('with TEMPORAL_PAYLOAD_CODEC set, tasks work and history holds only ciphertext', async () => {
  const { temporal, url } = stack;
  const secret = 'the-secret-merger-plan';
  const { taskId } = await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: secret, seconds: 0 } });
  expect((await pollTask(url, taskId)).result.content[0].text).toBe(secret);

  const history = await temporal.client.workflowService.getWorkflowExecutionHistory({
    namespace: 'default',
    execution: { workflowId: taskId },
  });
  const events = history.history?.events ?? [];
  const input = events[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const result = events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  for (const payload of [input, result]) expect(Buffer.from(payload!.metadata!.encoding!).toString()).toBe('binary/encrypted');
  const everything = JSON.stringify(events, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
  expect(everything).not.toContain(secret);
  expect(everything).not.toContain(Buffer.from(secret).toString('base64'));
});

test("a watched task's end read from its completion event is decoded with the codec", async () => {
  const { url } = stack;
  const secret = 'the-watched-secret';
  const { taskId } = await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: secret, seconds: 3 } });
  // polled while its timer runs, until the watch answers (a read makes no describe()); then no describe() to its end
  const describes = jest.spyOn(stack.server!.client.workflowService, 'describeWorkflowExecution');
  await waitFor(async () => {
    describes.mockClear();
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('working');
    return describes.mock.calls.length === 0 || undefined;
  });
  describes.mockClear();
  const done = await pollTask(url, taskId, undefined, 30_000, { intervalMs: 50 });
  expect(done.result.content[0].text).toBe(secret);
  expect(describes.mock.calls.filter(([r]) => r.execution?.workflowId === taskId)).toHaveLength(0);
  describes.mockRestore();
});

test("a watched task's progress read from its memo event is decoded with the codec", async () => {
  const { temporal, url } = stack;
  const { taskId } = await call(url, 'tools/call', { name: 'stepped_job', arguments: { steps: 4, ms: 1_000 } });
  const describes = jest.spyOn(stack.server!.client.workflowService, 'describeWorkflowExecution');
  await waitFor(async () => {
    describes.mockClear();
    await call(url, 'tasks/get', { taskId });
    return describes.mock.calls.length === 0 || undefined;
  });
  describes.mockClear();
  const messages = new Set<string>();
  await pollTask(url, taskId, (t) => (messages.add(t.statusMessage), t.status === 'completed'), 30_000, { intervalMs: 50 });
  expect([...messages]).toEqual(expect.arrayContaining(['step 3 of 4', 'step 4 of 4']));
  expect(describes.mock.calls.filter(([r]) => r.execution?.workflowId === taskId)).toHaveLength(0);
  describes.mockRestore();
  // the progress the watch decoded is ciphertext in the history
  const { events } = await temporal.client.workflow.getHandle(taskId).fetchHistory();
  const memo = events!.find((e) => e.workflowPropertiesModifiedEventAttributes)!.workflowPropertiesModifiedEventAttributes!.upsertedMemo!;
  expect(Buffer.from(memo.fields!.mcpProgress.metadata!.encoding!).toString()).toBe('binary/encrypted');
});
