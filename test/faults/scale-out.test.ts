/** Case 6: two server replicas and two workers; each task's requests spread over both replicas. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, ledgerCounts, ledgerDir, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

test('create on A, get on B, update on A, cancel on B behave exactly as on one server', async () => {
  temporal = await startTestTemporal();
  const ledger = ledgerDir();
  await Promise.all([
    startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger }),
    startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger }),
  ]);
  const [a, b] = await Promise.all([startServe(temporal.address), startServe(temporal.address)]);

  const approvals = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createTask(a.url, 'approve_expense', { amount: i + 1, description: `item ${i}` })),
  );
  const longs = await Promise.all(Array.from({ length: 5 }, () => createTask(a.url, 'wait_and_echo', { text: 'x', seconds: 600 })));
  const envs = await Promise.all(
    Array.from({ length: 6 }, (_, i) => createTask(b.url, 'provision_environment', { name: `e${i}`, steps: 2, stepMs: 300 })),
  );

  for (const id of approvals)
    expect((await pollTask(b.url, id, (t) => t.status === 'input_required')).inputRequests).toHaveProperty('approval');
  for (const id of approvals)
    await call(a.url, 'tasks/update', { taskId: id, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
  for (const id of longs) await call(b.url, 'tasks/cancel', { taskId: id });

  const approved = await Promise.all(approvals.map((id, i) => pollTask(i % 2 ? a.url : b.url, id)));
  const cancelled = await Promise.all(longs.map((id) => pollTask(a.url, id)));
  const provisioned = await Promise.all(envs.map((id) => pollTask(a.url, id)));
  approved.forEach((t, i) => expect(t.result.content[0].text).toBe(`Expense of ${i + 1} for "item ${i}" was approved.`));
  expect(cancelled.map((t) => t.status)).toEqual(Array(5).fill('cancelled'));
  expect(provisioned.map((t) => t.status)).toEqual(Array(6).fill('completed'));
  const duplicated = [...ledgerCounts(ledger, 'effects.log').values()].filter((n) => n > 1).length;
  expect(duplicated).toBe(0);
  report('scale-out', { started: 21, completed: 16, cancelled: 5, lost: 0, duplicated });
});
