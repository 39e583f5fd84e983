/**
 * Faults of the cluster itself, under two `serve` replicas and two workers, with the effects
 * ledger checked after each: nothing lost, nothing applied twice. A history host SIGKILLed
 * during sagas and during input waits (its shards move to the other host), matching SIGKILLed,
 * the frontend restarted while clients poll, PostgreSQL restarted. Each test leaves the cluster
 * whole again for the next.
 */
import { call, isTerminal, pollTask, RpcError } from '../support/mcp';
import { ledgerCounts } from '../support/ledger';
import { createTask } from '../support/mcp-client';
import { sleep } from '../support/wait';
import { answerEventually, report, useClusterStack } from './support';

const stack = useClusterStack();
const STEPS = 3;

/** Sagas of STEPS steps spread over both replicas; their ids. */
const startSagas = (n: number, name: string) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      createTask(stack.urls[i % 2], 'provision_environment', { name: `${name}-${i}`, steps: STEPS, stepMs: 800 }),
    ),
  );

/** Every saga completed, each step's effect applied exactly once; returns the counts reported. */
async function expectSagasDone(ids: string[]): Promise<Record<string, number>> {
  const ended = await Promise.all(ids.map((id, i) => pollTask(stack.urls[(i + 1) % 2], id, undefined, 180_000)));
  expect(ended.map((t) => t.status)).toEqual(ids.map(() => 'completed'));
  const effects = ledgerCounts(stack.ledger, 'effects.log');
  const expected = ids.flatMap((id) => Array.from({ length: STEPS }, (_, s) => `provision-${id}:step-${s + 1}`));
  expect(expected.filter((k) => effects.get(k) !== 1)).toEqual([]);
  // attempts past one per step: what the fault cost (activities retried or run again)
  const attempts = ledgerCounts(stack.ledger, 'attempts.log');
  const tried = expected.reduce((sum, k) => sum + (attempts.get(k) ?? 0), 0);
  return { started: ids.length, completed: ended.length, lost: 0, duplicated: 0, stepAttempts: tried, steps: expected.length };
}

test('a history host SIGKILLed during sagas: the other host takes its shards, every saga completes once', async () => {
  const ids = await startSagas(8, 'hist');
  await sleep(1200); // first steps running
  await stack.tc.crash('history-1', () => sleep(3000));
  report('cluster history host kill (saga)', await expectSagasDone(ids));
});

test('a history host SIGKILLed during input waits: the answers given while it is down all land once', async () => {
  const [a, b] = stack.urls;
  const ids = await Promise.all(
    Array.from({ length: 6 }, (_, i) => createTask(a, 'approve_expense', { amount: i + 1, description: `w${i}` })),
  );
  for (const id of ids) await pollTask(b, id, (t) => t.status === 'input_required');
  await stack.tc.cluster.kill('history-2');
  const tries = await Promise.all(
    ids.map((id) => answerEventually(b, id, { approval: { action: 'accept', content: { approved: true } } })),
  );
  await stack.tc.cluster.start('history-2');
  const ended = await Promise.all(ids.map((id) => pollTask(a, id, undefined, 180_000)));
  ended.forEach((t, i) => expect(t.result.content[0].text).toBe(`Expense of ${i + 1} for "w${i}" was approved.`));
  for (const id of ids) {
    const history = await stack.tc.client.workflow.getHandle(id).fetchHistory();
    const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'mcp.inputResponses');
    expect(signals).toHaveLength(1); // answered once, whatever the retries
  }
  report('cluster history host kill (input wait)', { started: 6, completed: ended.length, lost: 0, updateTries: Math.max(...tries) });
});

test('matching SIGKILLed during sagas: restarted, the task queues refill and every saga completes once', async () => {
  const ids = await startSagas(6, 'match');
  await sleep(1200);
  await stack.tc.crash('matching', () => sleep(2000));
  report('cluster matching kill', await expectSagasDone(ids));
});

test('the frontend restarted while clients poll: every poll is answered and every task completes', async () => {
  const ids = await startSagas(4, 'front');
  let unreachable = 0;
  let slowestMs = 0;
  const poll = async (url: string, taskId: string) => {
    for (;;) {
      const asked = Date.now();
      const task = await call(url, 'tasks/get', { taskId }).catch((err: RpcError) => {
        if (err.code !== -32603) throw err;
        unreachable++;
      });
      slowestMs = Math.max(slowestMs, Date.now() - asked);
      if (task && isTerminal(task)) return task;
      await sleep(200);
    }
  };
  const polls = ids.map((id, i) => poll(stack.urls[i % 2], id));
  await sleep(800);
  await stack.tc.crash('frontend', () => sleep(3000));
  await Promise.all(polls);
  // what the clients saw while it was down (printed): -32603 answers, or answers held until it was back
  report('cluster frontend restart', { ...(await expectSagasDone(ids)), unreachableAnswers: unreachable, slowestGetMs: slowestMs });
});

test('PostgreSQL restarted during sagas: the services reconnect, every saga completes once', async () => {
  const ids = await startSagas(6, 'pg');
  await sleep(1200);
  await stack.tc.cluster.postgres.restart();
  report('cluster PostgreSQL restart', await expectSagasDone(ids));
});
