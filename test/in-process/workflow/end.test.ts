/**
 * One truth per task (issue 31): the runtime decides a task's end once, and Temporal's close
 * status, McpTaskStatus, tasks/get and the UI's final details all say it. A cancellation nobody
 * requested (the tool's own scope timing out, the claim guard) is a failure, not `cancelled`.
 * Plus the runtime's bounds: one input deadline, only outstanding keys as answers, undos that
 * can travel and stay under their budget.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { inputResponsesSignal, MCP_TASK_STATUS, TASK_MEMO_KEY, type TaskMemo } from '../../../src/contract';
import type { TemporalTaskStore } from '../../../src/tasks/temporal-task-store';
import { UNDO_BUDGET_BYTES } from '../../../src/workflows/compensation';
import type { RuntimeCarry } from '../../../src/workflows/runtime';
import { McpTasksPlugin } from '../../../src/worker';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import path from 'node:path';
import {
  accept,
  currentDetails,
  demo,
  type Harness,
  startHarness,
  testTool,
  workflows,
  sagaLedger,
  WORKFLOWS_PATH,
} from '../../support/workflow-harness';

const { activities, effectsOf, undosOf } = sagaLedger();

const tools = {
  ownTimeout: testTool('own_timeout', workflows.ownTimeout),
  sagaThenWait: testTool('saga_then_wait', workflows.sagaThenWait),
  sagaInRuns: testTool('saga_in_runs', workflows.sagaInRuns),
  closureSagaInRuns: testTool('closure_saga_in_runs', workflows.closureSagaInRuns),
  twoTimedQuestions: testTool('two_timed_questions', workflows.twoTimedQuestions),
  sagaThenAsk: testTool('saga_then_ask', workflows.sagaThenAsk),
  heavyUndos: testTool('heavy_undos', workflows.heavyUndos),
  failingUndos: testTool('failing_undos', workflows.failingUndos),
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [...demo.tools, ...Object.values(tools)], activities });
});
afterAll(async () => {
  await h?.teardown();
});

/** Every task these tests ended: the last test replays them all from scratch. */
const ended: string[] = [];

/** What every reader says of a closed task. */
async function readers(taskId: string) {
  ended.push(taskId);
  await h
    .handle(taskId)
    .result()
    .catch(() => undefined);
  const d = await h.handle(taskId).describe();
  const task = await h.store.read(taskId);
  return {
    temporal: d.status.name,
    mcpStatus: d.typedSearchAttributes.get(MCP_TASK_STATUS),
    tasksGet: task?.state.status,
    error: task?.state.status === 'failed' ? task.state.error.message : undefined,
    details: await currentDetails(h.handle(taskId)),
  };
}

/** Starts `tool` as a call from a client without Tasks does: the run must be claimed within `claimWithinMs`. */
async function startUnclaimed(
  tool: (typeof tools)[keyof typeof tools],
  args: Record<string, unknown>,
  claimWithinMs: number,
  historyLimit?: number,
) {
  const store = historyLimit ? h.storeWith({ historyLimit }) : h.store;
  return (
    await store.start({ tool: tool.name, workflowType: tool.workflow!.name, arguments: args, summary: `test ${tool.name}`, claimWithinMs })
  ).taskId;
}

describe('item 1: one end, every reader', () => {
  test('tasks/cancel: CANCELLED, cancelled, cancelled, and the UI says cancelled', async () => {
    const taskId = await h.startTask(tools.sagaThenWait, { steps: 1, waitMs: 60_000 });
    await h.waitFor(taskId, (t) => t.statusMessage === 'steps done');
    await h.store.cancel(taskId);
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'CANCELLED', mcpStatus: 'cancelled', tasksGet: 'cancelled' });
    expect(end.details).toMatch(/\*\*cancelled\*\*: tasks\/cancel, every step undone$/);
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('completed: COMPLETED, completed, completed, and the UI says completed', async () => {
    const taskId = await h.startTask(tools.sagaThenWait, { steps: 1 });
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'COMPLETED', mcpStatus: 'completed', tasksGet: 'completed' });
    expect(end.details).toMatch(/\*\*completed\*\*$/);
    expect(undosOf(taskId)).toEqual([]);
  });
});

describe('unanswered input (issue 32 item 4): a task nobody answers ends and gives its place back', () => {
  test('past answerWithinMs: failed on every reader (McpTaskUnanswered), its step undone', async () => {
    const taskId = await h.startTask(tools.sagaThenAsk, {}, h.storeWith({ answerWithinMs: 400 }));
    const end = await readers(taskId);
    expect(end).toMatchObject({
      temporal: 'FAILED',
      mcpStatus: 'failed',
      tasksGet: 'failed',
      error: expect.stringMatching(/nobody answered approval within 400 ms/),
    });
    expect(effectsOf(taskId)).toEqual([]);
    expect(undosOf(taskId)).toHaveLength(1);
  });

  test("the tool's own shorter timeout is an InputTimeout, as before", async () => {
    const taskId = await h.startTask(tools.sagaThenAsk, { timeoutMs: 200 }, h.storeWith({ answerWithinMs: 60_000 }));
    expect((await readers(taskId)).error).toMatch(/no answer for approval in time/);
  });

  test('anonymous callers get the shorter anonymous limit; an owner gets the ttl; 0 and 0: no limit', async () => {
    const memoOf = async (store: TemporalTaskStore, owner?: string) => {
      const { taskId } = await store.start({
        tool: tools.sagaThenAsk.name,
        workflowType: 'sagaThenAsk',
        arguments: {},
        summary: 'memo',
        owner,
      });
      const memo = (await h.handle(taskId).describe()).memo?.[TASK_MEMO_KEY] as TaskMemo;
      await h.handle(taskId).terminate('checked');
      return memo.answerWithinMs;
    };
    const store = h.storeWith({ ttlMs: 86_400_000, anonymousAnswerWithinMs: 3_600_000, ownerKey: 'k'.repeat(32) });
    expect(await memoOf(store)).toBe(3_600_000);
    expect(await memoOf(store, 'alice')).toBe(86_400_000);
    expect(await memoOf(h.storeWith({ answerWithinMs: 0, anonymousAnswerWithinMs: 0 }))).toBeUndefined();
    expect(await memoOf(h.storeWith({ answerWithinMs: 600_000, anonymousAnswerWithinMs: 3_600_000 }))).toBe(600_000);
  });
});

test("item 2: the tool's own CancellationScope.withTimeout firing fails the task everywhere, naming it; its steps are undone", async () => {
  const taskId = await h.startTask(tools.ownTimeout, { timeoutMs: 300 });
  const end = await readers(taskId);
  expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
  expect(end.error).toMatch(/the tool's own cancellation scope was cancelled \(a timeout\), not tasks\/cancel/);
  expect(end.details).toMatch(/\*\*failed\*\*: the tool's own cancellation scope/);
  expect(undosOf(taskId)).toEqual([`${taskId}:1`]);
});

test('item 2: an inner scope the tool cancelled itself fails the task too', async () => {
  const taskId = await h.startTask(tools.ownTimeout, {});
  const end = await readers(taskId);
  expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
  expect(end.error).toMatch(/the tool's own cancellation scope was cancelled/);
  expect(undosOf(taskId)).toEqual([`${taskId}:1`]);
});

describe('item 3: the claim guard', () => {
  test('landing during an activity: every step undone, then failed on every reader', async () => {
    const taskId = await startUnclaimed(tools.sagaThenWait, { steps: 2, stepMs: 1_500 }, 1_000);
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
    expect(end.error).toMatch(/nobody claimed the task within 1000ms \(its caller never got the handle\): steps undone/);
    expect(end.details).toMatch(/\*\*failed\*\*: nobody claimed/);
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('its deadline holds across continue-as-new: an unclaimed chain ends at it, undone', async () => {
    const taskId = await startUnclaimed(tools.sagaInRuns, { turns: 40, stepMs: 100 }, 1_500, 1);
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
    expect(end.error).toMatch(/nobody claimed the task within 1500ms/);
    expect(undosOf(taskId).length).toBeGreaterThan(0);
    expect(undosOf(taskId).length).toBeLessThan(40);
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('an undo that fails after it fired: failed with the undo failure, every other undo attempted', async () => {
    const taskId = await startUnclaimed(tools.failingUndos, { failing: [2] }, 1_000);
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
    expect(end.error).toMatch(/1 step\(s\) could not be undone after nobody claimed the task within 1000ms.*step 2: .*refuses to delete/);
    expect(undosOf(taskId)).toEqual([`${taskId}:3`, `${taskId}:1`]);
    expect(effectsOf(taskId)).toEqual([`${taskId}:2`]);
  });

  test('a chain claimed in time runs to its end', async () => {
    const taskId = await startUnclaimed(tools.sagaInRuns, { turns: 3, stepMs: 700 }, 1_000, 1);
    await h.store.claim(taskId);
    expect(await readers(taskId)).toMatchObject({ temporal: 'COMPLETED', mcpStatus: 'completed', tasksGet: 'completed' });
    expect(effectsOf(taskId)).toHaveLength(3);
  });
});

describe('item 9: an input timeout', () => {
  const timersOf = async (taskId: string) =>
    ((await h.handle(taskId).fetchHistory()).events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((t): t is temporal.api.history.v1.ITimerStartedEventAttributes['startToFireTimeout'] & object => !!t)
      .map((t) => Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6));

  test('is one deadline: a partial answer does not restart it, and it fails as InputTimeout', async () => {
    const taskId = await h.startTask(tools.twoTimedQuestions, { timeoutMs: 3_000 });
    await h.waitFor(taskId, (t) => t.state.status === 'input_required');
    await new Promise((r) => setTimeout(r, 1_000));
    await h.store.sendInput(taskId, undefined, { a: accept({ ok: true }) });
    const err = await h
      .handle(taskId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('InputTimeout');
    expect(cause?.message).toBe('no answer for b in time');
    const [first, second] = await timersOf(taskId);
    expect(first).toBe(3_000);
    // the wait after the answer is what was left of the 3 s, not 3 s again
    expect(second).toBeLessThan(2_500);
    expect((await readers(taskId)).mcpStatus).toBe('failed');
  });
});

test('item 10: keys like constructor, toString and __proto__ are not answers and are not carried across runs', async () => {
  const store = h.storeWith({ historyLimit: 10 });
  const { taskId, runId } = await h.startTaskSnapshot(demo.collectApprovalsTool, { approvers: ['ann', 'bob', 'cy', 'dee'] }, store);
  await h.waitFor(taskId, (t) => t.state.status === 'input_required' && 'approval-0' in t.state.inputRequests, { store });
  // straight to the workflow (past the store), as JSON would bring them: own keys of the answers object
  const junk = JSON.parse('{"constructor": {"action": "accept"}, "toString": 1, "__proto__": {"polluted": true}, "hasOwnProperty": 2}');
  await h.handle(taskId).signal(inputResponsesSignal, junk);
  for (let i = 0; i < 4; i++) {
    await h.waitFor(taskId, (t) => t.state.status === 'input_required' && `approval-${i}` in t.state.inputRequests, { store });
    await store.sendInput(taskId, undefined, { [`approval-${i}`]: accept({ approved: true }) });
  }
  const done = await h.waitFor(taskId, (t) => t.state.status === 'completed', { store });
  expect(done.state).toMatchObject({ result: { content: [{ text: 'Approved by all 4: ann, bob, cy, dee.' }] } });
  // what the first run handed to the next one
  const events = (await h.client.workflow.getHandle(taskId, runId).fetchHistory()).events ?? [];
  const continued = events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes;
  expect(continued).toBeDefined();
  const carry = defaultPayloadConverter.fromPayload<RuntimeCarry>(continued!.input!.payloads![1] as never);
  expect(Object.keys(carry.responses)).toEqual([]);
});

describe('item 6: the undos that travel are bounded', () => {
  test(`a step whose undo would pass the ${UNDO_BUDGET_BYTES}-byte budget is refused before it runs: the task fails, every step undone`, async () => {
    const taskId = await h.startTask(tools.heavyUndos, { count: 10, padBytes: 40_000 });
    const end = await readers(taskId);
    expect(end).toMatchObject({ temporal: 'FAILED', mcpStatus: 'failed', tasksGet: 'failed' });
    expect(end.error).toMatch(new RegExp(`step 7's undo \\(\\d+ bytes\\) would take .* over the ${UNDO_BUDGET_BYTES}-byte budget`));
    expect(undosOf(taskId)).toEqual([6, 5, 4, 3, 2, 1].map((i) => `${taskId}:${i}`));
    expect(effectsOf(taskId)).toEqual([]);
  });

  test('a closure undo inside loop() is refused at the first turn, though no continue-as-new is due', async () => {
    const taskId = await h.startTask(tools.closureSagaInRuns, { turns: 3 });
    const stuck = await h.waitFor(taskId, (t) => t.stuck === true, { timeoutMs: 30_000 });
    expect(stuck.statusMessage).toMatch(/cannot continue as new with undos that are closures \(step 1\)/);
    expect(effectsOf(taskId)).toEqual([`${taskId}:1`]);
    await h.handle(taskId).terminate('test over');
  });
});

test('every task above replays from its history on a fresh worker: the decided ends are deterministic', async () => {
  expect(ended.length).toBeGreaterThanOrEqual(8);
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    plugins: [new McpTasksPlugin({ tools: [...demo.tools, ...Object.values(tools)] })],
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        alias: {
          ...(config.resolve?.alias as object),
          'mcp-temporal-tasks/workflow$': path.resolve(__dirname, '../../../src/workflows/index.ts'),
        },
      },
    }),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  for (const taskId of ended) {
    // every run of the chain, newest first
    for (let runId: string | undefined = (await h.handle(taskId).describe()).runId; runId;) {
      const history = await h.client.workflow.getHandle(taskId, runId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle, replayName: `${taskId} ${runId}` }, history, taskId);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
  }
});
