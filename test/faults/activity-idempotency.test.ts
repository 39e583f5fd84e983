/**
 * A worker SIGKILLed in the middle of an activity (issue 22, item 8): the retried attempt, on
 * another worker process, gets the same idempotencyKey(), so the external effect the killed
 * attempt had already applied is not applied again. Real processes: Temporal, two CLI workers
 * one after the other, `serve`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';
import { createTask, ledgerDir, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

test('the retried activity gets the same idempotency key and the effect happens once', async () => {
  temporal = await startTestTemporal();
  const ledger = ledgerDir();
  const lines = (file: string) =>
    fs.existsSync(path.join(ledger, file)) ? fs.readFileSync(path.join(ledger, file), 'utf8').trim().split('\n').filter(Boolean) : [];
  const first = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  const { url } = await startServe(temporal.address);

  // keyed_job applies its effect at once, then waits 4 s for a confirmation, heartbeating
  const taskId = await createTask(url, 'keyed_job', { ms: 4000 });
  await waitFor(async () => (lines('effects.log').length === 1 ? true : undefined));
  await pollTask(url, taskId, (t) => /^waiting for the confirmation/.test(t.statusMessage ?? ''), 10_000);
  first.child.kill('SIGKILL'); // mid-activity: the effect is applied, the activity not completed
  await first.stop();
  const killedAt = Date.now();
  await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });

  const done = await pollTask(url, taskId, undefined, 60_000);
  const attempts = lines('attempts.log');
  const effects = lines('effects.log');
  expect(done.status).toBe('completed');
  expect(attempts).toHaveLength(2); // the killed attempt and the retry (after the 2 s heartbeat timeout)
  expect(new Set(attempts).size).toBe(1); // one key for both
  expect(attempts[0]).toMatch(new RegExp(`^${taskId}:[0-9a-f-]+:1$`));
  expect(effects).toEqual([attempts[0]]); // applied once
  expect(done.result.content[0].text).toBe(`confirmed ${attempts[0]}`);
  const history = await temporal.client.workflow.getHandle(taskId).fetchHistory();
  const started = history.events!.find((e) => e.activityTaskStartedEventAttributes)!.activityTaskStartedEventAttributes!;
  expect(started.attempt).toBe(2); // Temporal records the attempt that completed
  report('activity idempotency', {
    attempts: attempts.length,
    distinctKeys: new Set(attempts).size,
    effectsApplied: effects.length,
    msKillToDone: Date.now() - killedAt,
  });
});
