/**
 * The fast tier's worker runs the demo workflows, the conformance fixtures and the few
 * workflows below, which exercise corners of the task runtime no demo tool reaches.
 */
import { ActivityCancellationType, ApplicationFailure, CancellationScope, condition, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import {
  type CallToolResult,
  continueAsNewIfNeeded,
  type InputRequest,
  loop,
  type LoopTurn,
  protocolError,
  requestInput,
  requestInputs,
  setStatusMessage,
  textResult,
  undoActivity,
  withCompensation,
} from 'mcp-temporal-tasks/workflow';

// the demo's workflows, the conformance fixtures and the process tests' own
export * from '../fixtures/workflows';
export * from './store-workflows';
// the activity helpers' (test/workflow/activities.test.ts)
export * from './activity-workflows';

const question = (message: string): InputRequest => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
}) as InputRequest;

/** Asks under the same key twice: the second ask is a bug in the tool and fails the task. */
export async function reusedKey(): Promise<CallToolResult> {
  await requestInput('same', question('first time?'));
  await requestInput('same', question('second time?'));
  return textResult('asked twice');
}

/** Ends with a JSON-RPC error of its own code and data. */
export async function customProtocolError({ code }: { code: number }): Promise<CallToolResult> {
  setStatusMessage('about to fail');
  throw protocolError(code, 'custom protocol failure', { reason: 'test' });
}

/** Sets the same status message in three activations, then two messages in one. */
export async function repeatsItself(): Promise<CallToolResult> {
  for (let i = 0; i < 3; i++) {
    setStatusMessage('the same');
    await sleep(10);
  }
  setStatusMessage('first of two');
  setStatusMessage('second of two');
  await sleep(10);
  return textResult('done');
}

/** Publishes a status message, then waits until cancelled. */
export async function statusAndWait({ message }: { message: string }): Promise<CallToolResult> {
  setStatusMessage(message);
  await condition(() => false);
  return textResult('unreachable');
}

/**
 * Asks in its first run, continues as new (the task's historyLimit must be 1), and waits on the
 * same key in the second run, asked with a different message: what tasks/get shows in between
 * tells whether the pending request and the statusMessage crossed over.
 */
export async function acrossRuns({ run = 0 }: { run?: number }): Promise<CallToolResult> {
  if (run === 0) {
    setStatusMessage('set in the first run');
    void requestInput('q', question('asked in run 0'));
    await continueAsNewIfNeeded({ run: 1 });
    return textResult('did not continue as new');
  }
  const answer = await requestInput<{ content?: { ok?: boolean } }>('q', question('asked in run 1'));
  return textResult(`answered in run ${run}: ${answer.content?.ok}`);
}

/** The activities of the saga workflows below (test/workflow/sagas.test.ts runs them in process). */
export interface SagaActivities {
  applyStep(input: { key: string; ms?: number }): Promise<void>;
  undoStep(input: { key: string }): Promise<void>;
}
const sagaActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '2 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
} as const;
const { applyStep, undoStep } = proxyActivities<SagaActivities>(sagaActivityOptions);

/** Applies `steps` steps in a saga, then waits `waitMs` before returning (a cancel may land then). */
export async function sagaThenWait({ steps, waitMs = 0, stepMs = 0 }: { steps: number; waitMs?: number; stepMs?: number }): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  await withCompensation(async (saga) => {
    for (let i = 1; i <= steps; i++) {
      const key = `${taskId}:${i}`;
      setStatusMessage(`step ${i}/${steps}`);
      await saga.step(() => applyStep({ key, ms: stepMs }), () => undoStep({ key }), `step ${i}`);
    }
  });
  setStatusMessage('steps done');
  if (waitMs > 0) await sleep(waitMs);
  return textResult(`${steps} steps applied`);
}

/**
 * One step per turn of `loop` inside a saga, each turn in a run of its own when the task's
 * historyLimit is 1: the undos (by activity name) travel from run to run.
 */
export async function sagaInRuns(args: { turns: number; stepMs?: number; resume?: number }): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  return withCompensation((saga) =>
    loop(args, 1, async (turn): Promise<LoopTurn<number, CallToolResult>> => {
      const key = `${taskId}:${turn}`;
      setStatusMessage(`turn ${turn}/${args.turns}`);
      await saga.step(() => applyStep({ key, ms: args.stepMs }), undoActivity('undoStep', [{ key }], sagaActivityOptions), `turn ${turn}`);
      return turn < args.turns ? { next: turn + 1 } : { done: textResult(`${args.turns} turns applied`) };
    }),
  );
}

/** A saga whose closure undos cannot travel: continuing as new inside it is refused clearly. */
export async function closureSagaInRuns(args: { turns: number; resume?: number }): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  return withCompensation((saga) =>
    loop(args, 1, async (turn): Promise<LoopTurn<number, CallToolResult>> => {
      await saga.step(() => applyStep({ key: `${taskId}:${turn}` }), () => undoStep({ key: `${taskId}:${turn}` }));
      return turn < args.turns ? { next: turn + 1 } : { done: textResult('unreachable') };
    }),
  );
}

/** Three steps whose undos fail where `failing` says; then fails itself, or waits for a cancel. */
export async function failingUndos({ failing, thenFail }: { failing: number[]; thenFail?: boolean }): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  return withCompensation(async (saga) => {
    for (let i = 1; i <= 3; i++) {
      const key = `${taskId}:${i}`;
      const undo = failing.includes(i) ? () => undoStep({ key: `fail:${key}` }) : () => undoStep({ key });
      await saga.step(() => applyStep({ key }), undo, `step ${i}`);
    }
    setStatusMessage('all steps applied');
    if (thenFail) throw ApplicationFailure.nonRetryable('the last check failed', 'CheckFailed');
    await condition(() => false);
    return textResult('unreachable');
  });
}

/** A plain bug (a TypeError) after a status message: the workflow task fails and is retried. */
export async function buggyAfterStatus(): Promise<CallToolResult> {
  setStatusMessage('about to hit a bug');
  await sleep(10);
  (undefined as unknown as { boom(): void }).boom();
  return textResult('unreachable');
}

/** Waits for an answer, then spends `spinIterations` of CPU in the same workflow task before returning. */
export async function answerThenSpin({ spinIterations }: { spinIterations: number }): Promise<CallToolResult> {
  await requestInput('go', question('go?'));
  let x = 0;
  for (let i = 0; i < spinIterations; i++) x = (x + i * 7) % 1_000_003;
  return textResult(`spun ${x}`);
}

/**
 * One step, then a wait in a scope of the tool's own that gets cancelled: by its
 * CancellationScope.withTimeout (`timeoutMs`), or by the tool itself. Nobody requested that cancellation.
 */
export async function ownTimeout({ timeoutMs }: { timeoutMs?: number }): Promise<CallToolResult> {
  const key = `${workflowInfo().workflowId}:1`;
  await withCompensation(async (saga) => {
    await saga.step(() => applyStep({ key }), () => undoStep({ key }), 'step 1');
    setStatusMessage('waiting in my own scope');
    if (timeoutMs !== undefined) return CancellationScope.withTimeout(timeoutMs, () => sleep('1 hour'));
    const scope = new CancellationScope();
    const waiting = scope.run(() => sleep('1 hour'));
    await sleep(100);
    scope.cancel();
    await waiting;
  });
  return textResult('unreachable');
}

/** One step, then a question inside the saga (unanswered, its failure undoes the step); `timeoutMs`: the tool's own timeout. */
export async function sagaThenAsk({ timeoutMs }: { timeoutMs?: number }): Promise<CallToolResult> {
  const key = `${workflowInfo().workflowId}:1`;
  await withCompensation(async (saga) => {
    await saga.step(() => applyStep({ key }), () => undoStep({ key }), 'step 1');
    await requestInput('approval', question('go on?'), timeoutMs === undefined ? {} : { timeout: timeoutMs });
  });
  return textResult('approved');
}

/** Two questions with one timeout for both (uncaught: the task fails with InputTimeout). */
export async function twoTimedQuestions({ timeoutMs }: { timeoutMs: number }): Promise<CallToolResult> {
  await requestInputs({ a: question('a?'), b: question('b?') }, { timeout: timeoutMs });
  return textResult('both answered');
}

/** `count` steps whose undos (by activity name) each carry `padBytes` of data. */
export async function heavyUndos({ count, padBytes }: { count: number; padBytes: number }): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  return withCompensation(async (saga) => {
    for (let i = 1; i <= count; i++) {
      const key = `${taskId}:${i}`;
      await saga.step(() => applyStep({ key }), undoActivity('undoStep', [{ key, pad: 'x'.repeat(padBytes) }], sagaActivityOptions), `step ${i}`);
    }
    return textResult(`${count} steps applied`);
  });
}
