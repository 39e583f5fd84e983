/**
 * Issue 20, item 1 with real processes: a cancel that lands while the LAST step runs (the step
 * finishes, its heartbeat never carried the cancel) ends the task cancelled with the step undone,
 * or, when the tool really finished first, completed with the cancel answer saying so. Never
 * "cancelled" with the effect in place, also when the worker is SIGKILLed right after the cancel.
 */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, ledgerDir, ledgerMarkers, report, sleep } from './support';

const RUNS = 10;
let temporal: TestTemporal;
stopAllAfter(() => temporal);

/** What the world holds for a one-step provision: the step applied, and undone. */
function effectOf(ledger: string, taskId: string) {
  return {
    applied: ledgerMarkers(ledger, 'provision', taskId).has('_step-1.json'),
    undone: ledgerMarkers(ledger, 'deprovision', taskId).has('_step-1.json'),
  };
}

test(`a cancel in the last step, ${RUNS} times, with a worker SIGKILL after half of them: the end matches the ledger`, async () => {
  temporal = await startTestTemporal();
  const ledger = ledgerDir();
  let worker = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  const { url } = await startServe(temporal.address);

  const outcomes: Array<{ ack: string; end: string; applied: boolean; undone: boolean }> = [];
  for (let i = 0; i < RUNS; i++) {
    const taskId = await createTask(url, 'provision_environment', { name: `last-${i}`, steps: 1, stepMs: 1500 });
    await sleep(1300 + Math.floor(Math.random() * 250)); // the step is in its last heartbeat window
    // what the cancel did: the ack's _meta (the ack itself stays empty)
    const ack = (await call(url, 'tasks/cancel', { taskId }))._meta['mcp-temporal-tasks/cancel'];
    if (i % 2 === 1) {
      worker.child.kill('SIGKILL'); // the cancel is recorded; nobody runs the workflow for a while
      await worker.stop();
      worker = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
    }
    const end = await pollTask(url, taskId, undefined, 90_000);
    await temporal.client.workflow
      .getHandle(taskId)
      .result()
      .catch(() => undefined);
    const temporalStatus = (await temporal.client.workflow.getHandle(taskId).describe()).status.name;
    outcomes.push({ ack: ack.status, end: end.status, ...effectOf(ledger, taskId) });
    expect(temporalStatus).toBe(end.status === 'cancelled' ? 'CANCELLED' : end.status === 'completed' ? 'COMPLETED' : 'FAILED');
    // cancelled: the step was undone, or (the cancel reached it first) never took effect
    const { applied, undone } = effectOf(ledger, taskId);
    if (end.status === 'cancelled') expect({ applied, undone }).toEqual({ applied, undone: applied });
    else {
      // the tool won the race: the cancel's answer said so and the step stays
      expect(end.status).toBe('completed');
      expect(ack.status).toBe('completed');
      expect(effectOf(ledger, taskId)).toEqual({ applied: true, undone: false });
    }
  }
  report('last-step cancel', {
    runs: RUNS,
    cancelled: outcomes.filter((o) => o.end === 'cancelled').length,
    completedFirst: outcomes.filter((o) => o.end === 'completed').length,
    cancelledUndone: outcomes.filter((o) => o.end === 'cancelled' && o.applied && o.undone).length,
    cancelledBeforeEffect: outcomes.filter((o) => o.end === 'cancelled' && !o.applied).length,
  });
});
