/**
 * The claim guard (src/workflows/claim-guard.ts) across a worker crash. A run started as a call
 * from a client without Tasks (claimWithinMs) waits for `mcp.claimed` on a durable timer; the
 * worker that armed the guard is SIGKILLed while it waits, and no worker runs when the deadline
 * passes. The next worker replays the history and decides from it alone:
 *
 * 1. no claim came: the guard fires, the step done before the crash is undone once, no later
 *    step takes effect, and every reader reports the task failed, McpTaskUnclaimed;
 * 2. the claim came (recorded while no worker ran, before the deadline): the claim wins, though
 *    the new worker only starts after the deadline; the task completes, nothing undone;
 * 3. an answer came instead (recorded while no worker ran, before the deadline): the next worker
 *    gets the answer and the deadline in one workflow task, and the guard wins over the answer;
 * 4. a cancel came instead, as 3: the cancel wins (requested before the deadline), cancelled.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { TemporalTaskStore } from '../../src/tasks';
import { claimHistory, completedBetween, EventType, type HistoryEvent, eventTime, signalNamed } from '../support/claim-history';
import { call, startServe, startWorker } from '../support/mcp';
import { killPid, stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';
import { ledgerCounts, ledgerDir, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const CLAIM_WITHIN_MS = 6_000;
const ledger = ledgerDir();
let store: TemporalTaskStore;
let url: string;
const { history, guardTimer, historyUntil, deadlinePassed } = claimHistory(() => temporal.client, CLAIM_WITHIN_MS);

beforeAll(async () => {
  temporal = await startTestTemporal();
  store = new TemporalTaskStore(temporal.client, {
    taskQueue: 'mcp-tasks',
    ttlMs: 60 * 60_000,
    temporalTimeoutMs: 10_000,
    historyLimit: 10_000,
    searchAttributes: true,
  });
  // serve answers tasks/get from Temporal alone: it needs no worker
  ({ url } = await startServe(temporal.address));
}, 120_000);

/** An unclaimed provision_environment run, as a call from a client without Tasks starts it. */
async function startUnclaimed(name: string, stepMs: number): Promise<string> {
  const { taskId } = await store.start({
    tool: 'provision_environment',
    workflowType: 'provisionEnvironment',
    arguments: { name, steps: 3, stepMs },
    summary: `unclaimed provision_environment (${name})`,
    claimWithinMs: CLAIM_WITHIN_MS,
  });
  return taskId;
}

/** The step activities the workflow has scheduled (a workflow task that completed recorded them). */
const stepsScheduled = (events: HistoryEvent[]) =>
  events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length;

/**
 * Step 1 took effect (the ledger) and the workflow task that scheduled step 2 completed: a kill now
 * lands while step 2's activity runs, not in a workflow task (which would stall 10 s, its timeout).
 */
const step1Done = (taskId: string) =>
  historyUntil(taskId, 'step 1 applied, step 2 scheduled', (events) =>
    ledgerOf(taskId, 'effects.log')['provision:step-1'] === 1 && stepsScheduled(events) === 2 ? true : undefined,
  );

async function closed(taskId: string): Promise<WorkflowExecutionDescription> {
  return waitFor(
    async () => {
      const d = await temporal.client.workflow.getHandle(taskId).describe();
      return d.status.name !== 'RUNNING' && d.searchAttributes.McpTaskStatus?.[0] !== 'working' ? d : undefined;
    },
    60_000,
    250,
    `${taskId} still running`,
  );
}

/** This task's lines in a ledger log (keys `<kind>-<taskId>:step-<n>`), by `<kind>:step-<n>`. */
function ledgerOf(taskId: string, log: 'attempts.log' | 'effects.log'): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [key, n] of ledgerCounts(ledger, log)) if (key.includes(taskId)) counts[key.replace(`-${taskId}`, '')] = n;
  return counts;
}

/** Starts a worker and the run, waits until `ready`, then SIGKILLs the worker by pid: the run and when its worker died. */
async function crashWhen(start: () => Promise<string>, ready: (taskId: string) => Promise<unknown>) {
  const worker = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  const taskId = await start();
  await ready(taskId);
  killPid(worker.pid);
  await worker.exited;
  return { taskId, killedAt: Date.now() };
}

/** `check` with a new worker running, stopped after it. */
async function withNextWorker(check: () => Promise<void>): Promise<void> {
  const next = await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledger });
  try {
    await check();
  } finally {
    await next.stop();
  }
}

test('worker SIGKILLed while an unclaimed run waits for its claim, no worker at the deadline: the next worker ends it McpTaskUnclaimed, step 1 undone once, nothing after it', async () => {
  // steps long enough that step 2, in flight at the crash and retried by the next worker, is
  // cancelled (heartbeats every 1.6 s) before it could take effect
  const STEP_MS = 4_000;
  const { taskId, killedAt } = await crashWhen(() => startUnclaimed('crash-unclaimed', STEP_MS), step1Done);
  // the guard was still waiting when its worker died: its timer had not fired
  const atKill = guardTimer(await history(taskId));
  expect(atKill.started).toBeDefined();
  expect(atKill.fired).toBeUndefined();
  expect(ledgerOf(taskId, 'effects.log')).toEqual({ 'provision:step-1': 1 });

  const { fired } = await deadlinePassed(taskId);
  expect(eventTime(fired)).toBeGreaterThan(killedAt);
  const restartedAt = Date.now();
  await withNextWorker(async () => {
    const d = await closed(taskId);
    expect(d.status.name).toBe('FAILED');
    expect(d.searchAttributes.McpTaskStatus).toEqual(['failed']);
    const events = await history(taskId);
    const failure = events.at(-1)!.workflowExecutionFailedEventAttributes?.failure;
    const message = `nobody claimed the task within ${CLAIM_WITHIN_MS}ms (its caller never got the handle): steps undone`;
    expect(failure?.applicationFailureInfo?.type).toBe('McpTaskUnclaimed');
    expect(failure?.message).toBe(message);
    // tasks/get (serve's read of Temporal) reports the same end
    expect(await call(url, 'tasks/get', { taskId })).toMatchObject({ status: 'failed', error: { message: `The task failed: ${message}` } });
    expect((await store.read(taskId))?.state.status).toBe('failed');

    // step 1 undone exactly once; step 2 never took effect (so its undo had nothing to do); step 3 never ran
    expect(ledgerOf(taskId, 'effects.log')).toEqual({ 'provision:step-1': 1, 'deprovision:step-1': 1 });
    const attempts = ledgerOf(taskId, 'attempts.log');
    expect(attempts['provision:step-3']).toBeUndefined();
    expect(attempts['deprovision:step-3']).toBeUndefined();
    report('claim guard across a worker crash, unclaimed', {
      claimWithinMs: CLAIM_WITHIN_MS,
      killedAfterStartMs: killedAt - eventTime(events[0]),
      deadlineAfterKillMs: eventTime(fired) - killedAt,
      workerRestartedAfterDeadlineMs: restartedAt - eventTime(fired),
      endedAfterRestartMs: eventTime(events.at(-1)!) - restartedAt,
      step2Attempts: attempts['provision:step-2'] ?? 0,
    });
  });
});

test('worker SIGKILLed, the claim arrives while no worker runs and before the deadline, the next worker starts after it: the claim wins, every step applied once, nothing undone', async () => {
  const STEP_MS = 1_500;
  const { taskId, killedAt } = await crashWhen(() => startUnclaimed('crash-claimed', STEP_MS), step1Done);

  await store.claim(taskId); // as serve does before it answers with the handle
  const claimedAt = Date.now();
  const { fired, events: before } = await deadlinePassed(taskId);
  const signal = signalNamed(before, 'mcp.claimed');
  // the claim is in history, recorded after the crash and before the deadline, which passed with no worker
  expect(signal).toBeDefined();
  expect(eventTime(signal!)).toBeGreaterThanOrEqual(killedAt - 1_000);
  expect(eventTime(signal!)).toBeLessThan(eventTime(fired));
  expect(Number(signal!.eventId)).toBeLessThan(Number(fired.eventId));
  expect(ledgerOf(taskId, 'effects.log')).toEqual({ 'provision:step-1': 1 });

  const restartedAt = Date.now();
  expect(restartedAt).toBeGreaterThan(eventTime(fired));
  await withNextWorker(async () => {
    const d = await closed(taskId);
    expect(d.status.name).toBe('COMPLETED');
    expect(d.searchAttributes.McpTaskStatus).toEqual(['completed']);
    expect(await call(url, 'tasks/get', { taskId })).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'Environment crash-claimed provisioned in 3 steps.' }] },
    });
    expect(ledgerOf(taskId, 'effects.log')).toEqual({ 'provision:step-1': 1, 'provision:step-2': 1, 'provision:step-3': 1 });
    expect(Object.keys(ledgerOf(taskId, 'attempts.log')).filter((k) => k.startsWith('deprovision'))).toEqual([]);
    const events = await history(taskId);
    report('claim guard across a worker crash, claimed while no worker ran', {
      claimWithinMs: CLAIM_WITHIN_MS,
      claimBeforeDeadlineMs: eventTime(fired) - eventTime(signal!),
      claimAfterKillMs: claimedAt - killedAt,
      workerRestartedAfterDeadlineMs: restartedAt - eventTime(fired),
      endedAfterRestartMs: eventTime(events.at(-1)!) - restartedAt,
    });
  });
});

test.each([
  ['answer', 'the guard wins over it: failed McpTaskUnclaimed, not approved'],
  ['cancel', 'the cancel wins: cancelled'],
])(
  'worker SIGKILLed while an unclaimed run waits for an answer, the %s recorded before the deadline with no worker, one workflow task gets both: %s',
  async (race) => {
    const start = async () =>
      (
        await store.start({
          tool: 'approve_expense',
          workflowType: 'approveExpense',
          arguments: { amount: 12, description: 'racing the deadline' },
          summary: 'unclaimed approve_expense',
          claimWithinMs: CLAIM_WITHIN_MS,
        })
      ).taskId;
    const inputRequired = (taskId: string) =>
      waitFor(
        async () => ((await store.read(taskId))?.state.status === 'input_required' ? true : undefined),
        30_000,
        100,
        'input_required',
      );
    const { taskId } = await crashWhen(start, inputRequired);
    if (race === 'answer') await store.sendInput(taskId, undefined, { approval: { action: 'accept', content: { approved: true } } });
    else await store.cancel(taskId);
    const { fired, events: before } = await deadlinePassed(taskId);
    const recorded =
      race === 'answer'
        ? signalNamed(before, 'mcp.inputResponses')
        : before.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED);
    expect(recorded).toBeDefined();
    expect(Number(recorded!.eventId)).toBeLessThan(Number(fired.eventId));
    // no workflow task completed between them: the next worker's first one holds both
    expect(completedBetween(before, recorded!, fired)).toEqual([]);

    await withNextWorker(async () => {
      const d = await closed(taskId);
      if (race === 'cancel') {
        expect(d.status.name).toBe('CANCELLED');
        expect(d.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
        expect(await call(url, 'tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
        return;
      }
      expect(d.status.name).toBe('FAILED');
      expect(d.searchAttributes.McpTaskStatus).toEqual(['failed']);
      const failure = (await history(taskId)).at(-1)!.workflowExecutionFailedEventAttributes?.failure;
      expect(failure?.applicationFailureInfo?.type).toBe('McpTaskUnclaimed');
      expect(await call(url, 'tasks/get', { taskId })).toMatchObject({
        status: 'failed',
        error: { message: expect.stringMatching(/nobody claimed/) },
      });
    });
  },
);
