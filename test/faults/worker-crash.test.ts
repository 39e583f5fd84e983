/** Case 1: SIGKILL the only worker mid-way through 20 tasks; a new worker finishes them all. */
import { pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { createTask, ledgerCounts, ledgerDir, report, sleep } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

test('20 running tasks survive a worker SIGKILL: all complete, no side effect applied twice', async () => {
  temporal = await startTestTemporal();
  const ledger = ledgerDir();
  const worker = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  const { url } = await startServe(temporal.address);

  const echoes = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createTask(url, 'wait_and_echo', { text: `echo-${i}`, seconds: 3 })),
  );
  const envs = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createTask(url, 'provision_environment', { name: `env-${i}`, steps: 3, stepMs: 1000 })),
  );
  await sleep(1500);
  worker.child.kill('SIGKILL');
  await worker.stop();
  await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });

  const echoResults = await Promise.all(echoes.map((id) => pollTask(url, id, undefined, 120_000)));
  const envResults = await Promise.all(envs.map((id) => pollTask(url, id, undefined, 120_000)));
  echoResults.forEach((t, i) => expect(t).toMatchObject({ status: 'completed', result: { content: [{ text: `echo-${i}` }] } }));
  envResults.forEach((t, i) =>
    expect(t).toMatchObject({ status: 'completed', result: { content: [{ text: `Environment env-${i} provisioned in 3 steps.` }] } }),
  );

  const effects = ledgerCounts(ledger, 'effects.log');
  const attempts = ledgerCounts(ledger, 'attempts.log');
  const expectedKeys = envs.flatMap((id) => [1, 2, 3].map((s) => `provision-${id}:step-${s}`));
  expect([...effects.keys()].sort()).toEqual(expectedKeys.sort());
  const duplicated = [...effects.values()].filter((n) => n > 1).length;
  expect(duplicated).toBe(0);
  const completed = [...echoResults, ...envResults].filter((t) => t.status === 'completed').length;
  report('worker crash', {
    started: 20,
    completed,
    lost: 20 - completed,
    duplicated,
    activityAttempts: [...attempts.values()].reduce((a, b) => a + b, 0),
    effectsApplied: effects.size,
  });
});
