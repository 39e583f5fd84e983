/** Cancel at random moments, many times: every step that took effect is undone, the one in flight included. */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, ledgerDir, ledgerMarkers, report, sleep } from './support';

const RUNS = 24;
let temporal: TestTemporal;
stopAllAfter(() => temporal);

test(`provision_environment cancelled mid-step ${RUNS} times leaves a balanced ledger`, async () => {
  temporal = await startTestTemporal();
  const ledger = ledgerDir();
  await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  const { url } = await startServe(temporal.address);

  const taskIds = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const taskId = await createTask(url, 'provision_environment', { name: `env-${i}`, steps: 4, stepMs: 300 });
      await sleep(Math.floor(Math.random() * 1500)); // anywhere in the first steps, often mid-activity
      await call(url, 'tasks/cancel', { taskId });
      await temporal.client.workflow
        .getHandle(taskId)
        .result()
        .catch(() => undefined); // the undo has run
      return taskId;
    }),
  );

  const markers = (kind: string, taskId: string) => ledgerMarkers(ledger, kind, taskId);
  let applied = 0;
  const unbalanced = taskIds.filter((taskId) => {
    const done = markers('provision', taskId);
    const undone = markers('deprovision', taskId);
    applied += done.size;
    return [...done].some((step) => !undone.has(step)) || [...undone].some((step) => !done.has(step));
  });
  report('mid-step cancel', { runs: RUNS, stepsApplied: applied, unbalanced: unbalanced.length });
  expect(applied).toBeGreaterThan(0); // the cancels did land after some steps took effect
  expect(unbalanced).toEqual([]);
});

test(`the docs' send_invoice cancelled at random moments ${RUNS} times: every invoice sent is voided`, async () => {
  const ledger = ledgerDir();
  await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger, BILLING_DELAY_MS: '400' }, ['--task-queue', 'invoices']);
  const { url } = await startServe(temporal.address, ['--task-queue', 'invoices']);

  const taskIds = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const taskId = await createTask(url, 'send_invoice', { customer: `c-${i}`, amount: 10 + i });
      await pollTask(url, taskId, (t) => t.status === 'input_required');
      await call(url, 'tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
      await sleep(Math.floor(Math.random() * 900)); // before, during or after the send
      await call(url, 'tasks/cancel', { taskId });
      await temporal.client.workflow
        .getHandle(taskId)
        .result()
        .catch(() => undefined);
      return taskId;
    }),
  );

  const has = (kind: string, taskId: string) => ledgerMarkers(ledger, kind, taskId).size > 0;
  const sent = taskIds.filter((id) => has('invoice-sent', id));
  const unbalanced = taskIds.filter((id) => has('invoice-sent', id) !== has('invoice-voided', id));
  report('mid-send cancel (docs example)', { runs: RUNS, invoicesSent: sent.length, unbalanced: unbalanced.length });
  expect(sent.length).toBeGreaterThan(0);
  expect(unbalanced).toEqual([]);
});
