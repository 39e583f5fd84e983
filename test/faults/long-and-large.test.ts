/** Cases 7 and 8: continue-as-new keeps the taskId and pending inputs; oversized payloads fail clearly. */
import { call, pollTask, rpc, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, report } from './support';

let temporal: TestTemporal;
let url: string;
beforeAll(async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  ({ url } = await startServe(temporal.address, ['--history-limit', '12']));
});
stopAllAfter(() => temporal);

test('a long process continues as new under the same taskId; its pending input survives', async () => {
  const approvers = ['ann', 'bob', 'cy', 'dee', 'eve'];
  const taskId = await createTask(url, 'collect_approvals', { approvers });
  const runIds = new Set<string>();
  for (let i = 0; i < approvers.length; i++) {
    const waiting = await pollTask(url, taskId, (t) => t.inputRequests?.[`approval-${i}`] !== undefined);
    expect(waiting).toMatchObject({ taskId, status: 'input_required', statusMessage: `waiting for ${approvers[i]} (${i + 1}/5)` });
    expect(Object.keys(waiting.inputRequests)).toEqual([`approval-${i}`]);
    runIds.add((await temporal.client.workflow.getHandle(taskId).describe()).runId);
    await call(url, 'tasks/update', { taskId, inputResponses: { [`approval-${i}`]: { action: 'accept', content: { approved: true } } } });
  }
  const done = await pollTask(url, taskId);
  expect(done.result.content[0].text).toBe('Approved by all 5: ann, bob, cy, dee, eve.');
  const description = await temporal.client.workflow.getHandle(taskId).describe();
  expect(description.raw.workflowExecutionInfo?.firstRunId).not.toBe(description.runId);
  expect(runIds.size).toBeGreaterThan(1);
  report('continue-as-new', { runs: runIds.size, inputsAnswered: approvers.length, lost: 0 });
});

test('a result over the payload limit ends the task failed with a clear, typed error; the server stays healthy', async () => {
  const taskId = await createTask(url, 'export_report', { rows: 200_000 });
  const failed = await pollTask(url, taskId);
  expect(failed).toMatchObject({
    status: 'failed',
    error: {
      code: -32603,
      message: expect.stringMatching(/over the 1500000-byte limit of a Temporal payload/),
      data: { limitBytes: 1_500_000 },
    },
  });
  const small = await createTask(url, 'export_report', { rows: 3 });
  expect((await pollTask(url, small)).result.content[0].text).toBe('id,name,amount\n1,item-1,7.00\n2,item-2,14.00\n3,item-3,21.00');
  report('payload limit', { oversizedResults: 1, failedClearly: 1, serverHealthy: 1 });
});

test('arguments over the payload limit are refused before Temporal is touched', async () => {
  const { body } = await rpc(url, 'tools/call', { name: 'collect_approvals', arguments: { approvers: Array(900).fill('x'.repeat(1800)) } });
  expect(body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/over the 1500000-byte limit/) });
});
