/** Structured JSON logs: every line about a task carries taskId, tool and the workflow's runId. */
import { call, pollTask, startServe, startWorker } from './support/mcp';
import { stopAllAfter } from './support/processes';
import { startTestTemporal, TestTemporal } from './support/temporal';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const jsonLines = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

test('server and worker log a task in JSON with taskId, tool and runId; --log-level filters', async () => {
  temporal = await startTestTemporal();
  const worker = await startWorker(temporal.address);
  const { url, proc: server } = await startServe(temporal.address);
  const quiet = await startServe(temporal.address, ['--poll-interval-ms', '500'], { MCP_LOG_LEVEL: 'error' });
  const { taskId } = await call(url, 'tools/call', { name: 'provision_environment', arguments: { name: 'logs', steps: 1, stepMs: 10 } });
  await call(url, 'tasks/cancel', { taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).catch(() => undefined);
  await pollTask(url, taskId);
  await call(quiet.url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'x', seconds: 0 } });
  await new Promise((r) => setTimeout(r, 500));

  const lines = [...jsonLines(server.output()), ...jsonLines(worker.output())];
  const aboutTask = lines.filter((l) => JSON.stringify(l).includes(taskId));
  expect(aboutTask.length).toBeGreaterThanOrEqual(3);
  for (const line of aboutTask) expect(line).toMatchObject({ taskId, tool: 'provision_environment', runId: expect.any(String), level: expect.any(Number), time: expect.any(Number) });
  expect(aboutTask.map((l) => l.msg)).toEqual(expect.arrayContaining(['task created', 'task progress']));
  expect(new Set(aboutTask.map((l) => l.runId)).size).toBe(1);
  expect(jsonLines(quiet.proc.output()).filter((l) => l.level < 50)).toEqual([]);
});
