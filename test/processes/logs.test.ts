/** Structured JSON logs: every line about a task carries taskId, tool and the workflow's runId. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

test('server and worker log a task in JSON with taskId, tool and runId; --log-level filters', async () => {
  temporal = await startTestTemporal();
  const worker = await startWorker(temporal.address);
  const { url, proc: server } = await startServe(temporal.address);
  const quiet = await startServe(temporal.address, ['--poll-interval-ms', '500'], { MCP_LOG_LEVEL: 'error' });
  const { taskId } = await call(url, 'tools/call', { name: 'provision_environment', arguments: { name: 'logs', steps: 2, stepMs: 10 } }); // two step messages: two progress lines (the end writes none)
  await call(url, 'tasks/cancel', { taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).catch(() => undefined);
  await pollTask(url, taskId);
  await call(quiet.url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } });
  await new Promise((r) => setTimeout(r, 500));

  const lines = [...jsonLines(server.output()), ...jsonLines(worker.output())];
  const aboutTask = lines.filter((l) => JSON.stringify(l).includes(taskId));
  expect(aboutTask.length).toBeGreaterThanOrEqual(3);
  for (const line of aboutTask)
    expect(line).toMatchObject({
      taskId,
      tool: 'provision_environment',
      runId: expect.any(String),
      level: expect.any(Number),
      time: expect.any(Number),
    });
  expect(aboutTask.map((l) => l.msg)).toEqual(expect.arrayContaining(['task created', 'task progress']));
  expect(new Set(aboutTask.map((l) => l.runId)).size).toBe(1);
  expect(jsonLines(quiet.proc.output()).filter((l) => l.level < 50)).toEqual([]);
});

test('serve warns once per stuck task, with the failure, however often it is read', async () => {
  temporal ??= await startTestTemporal();
  await startWorker(temporal.address);
  const { url, proc: server } = await startServe(temporal.address);
  const { taskId } = await call(url, 'tools/call', { name: 'broken_job', arguments: {} });
  await pollTask(url, taskId, (t) => /^stuck: /.test(t.statusMessage ?? ''), 20_000);
  for (let i = 0; i < 3; i++) await call(url, 'tasks/get', { taskId });
  const warnings = jsonLines(server.output()).filter((l) => l.event === 'task.stuck');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ taskId, level: 40, failure: expect.stringMatching(/reading 'join'/) });
  await temporal.client.workflow.getHandle(taskId).terminate('test over');
});
