/**
 * The demo tools' workflows (examples/demo/workflows.ts) with mocked activities: each decision
 * and each compensation, as tasks/get sees it.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DeprovisionStepInput, ProvisionStepInput } from '../../../examples/demo/activities';
import { MCP_TASK_STATUS } from '../../../src/contract';
import { accept, demo, type Harness, historyEventTypes, startHarness } from '../../support/workflow-harness';

/** Per task: every activity call in order, and the steps whose effect is in place. */
interface Ledger {
  calls: Array<[string, number]>;
  applied: Set<number>;
  /** The steps whose effect an undo removed, in order. */
  undone: number[];
}
const ledgers = new Map<string, Ledger>();
const ledger = (idempotencyKey: string): Ledger => {
  const taskId = idempotencyKey.split(':')[0];
  if (!ledgers.has(taskId)) ledgers.set(taskId, { calls: [], applied: new Set(), undone: [] });
  return ledgers.get(taskId)!;
};

/** How a step in flight meets a cancel: it gives up (no effect) or it finishes anyway (effect). */
const inFlight = new Map<number, 'gives-up' | 'finishes-anyway'>();

const activities = {
  async provisionStep(input: ProvisionStepInput): Promise<void> {
    const l = ledger(input.idempotencyKey);
    l.calls.push(['provision', input.step]);
    const mode = inFlight.get(input.step);
    if (mode) {
      const ctx = Context.current();
      // heartbeats until the cancel arrives: ctx.sleep then throws a CancelledFailure
      const cancelled = await (async () => {
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(100);
        }
      })().catch((err: unknown) => err);
      if (mode === 'gives-up') throw cancelled;
    }
    l.applied.add(input.step);
  },
  async deprovisionStep(input: DeprovisionStepInput): Promise<void> {
    if (input.environment === 'stuck') throw ApplicationFailure.nonRetryable('the cloud API refuses to delete it', 'UndoRefused');
    const l = ledger(input.idempotencyKey);
    l.calls.push(['deprovision', input.step]);
    if (l.applied.delete(input.step)) l.undone.push(input.step);
  },
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: demo.tools, activities });
});

afterAll(async () => {
  await h?.teardown();
});

beforeEach(() => inFlight.clear());

async function approveWith(answer: unknown) {
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 120, description: 'conference' });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  await h.store.sendInput(taskId, undefined, { approval: answer });
  return h.waitFor(taskId, (t) => t.state.status === 'completed');
}

describe('approveExpense', () => {
  test('approved', async () => {
    const done = await approveWith(accept({ approved: true }));
    expect(done.state).toEqual({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Expense of 120 for "conference" was approved.' }], isError: false },
    });
  });

  test('declined (the elicitation itself)', async () => {
    const done = await approveWith({ action: 'decline' });
    expect(done.state).toEqual({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Expense of 120 not approved: the request was declined.' }], isError: true },
    });
  });

  test('rejected in the form, with a comment', async () => {
    const done = await approveWith(accept({ approved: false, comment: 'too much' }));
    expect(done.state).toEqual({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Expense of 120 for "conference" was rejected. Comment: too much' }], isError: true },
    });
  });
});

describe('provisionEnvironment', () => {
  test('runs every step once, in order, and undoes nothing', async () => {
    const taskId = await h.startTask(demo.provisionEnvironmentTool, { name: 'qa', steps: 3, stepMs: 0 });
    const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
    expect(done.state).toMatchObject({ result: { content: [{ type: 'text', text: 'Environment qa provisioned in 3 steps.' }] } });
    expect(ledgers.get(taskId)?.calls).toEqual([
      ['provision', 1],
      ['provision', 2],
      ['provision', 3],
    ]);
    expect([...ledgers.get(taskId)!.applied]).toEqual([1, 2, 3]);
  });

  /** Starts 5 steps, cancels while step 3 is in flight, and waits for the workflow to end. */
  async function cancelDuringStep3(): Promise<Ledger> {
    const taskId = await h.startTask(demo.provisionEnvironmentTool, { name: 'staging', steps: 5, stepMs: 0 });
    const busy = await h.waitFor(taskId, (t) => t.statusMessage?.startsWith('step 3/5') ?? false);
    expect(busy.state.status).toBe('working');
    expect(busy.statusMessage).toBe('step 3/5: provisioning compute for staging');
    await h.waitFor(taskId, () => ledgers.get(taskId)?.calls.length === 3); // step 3's activity is running

    expect(await h.store.cancel(taskId)).toMatchObject({ state: { status: 'working' }, cancelRequested: true });
    await expect(h.handle(taskId).result()).rejects.toThrow();
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    const description = await h.handle(taskId).describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(description.typedSearchAttributes.get(MCP_TASK_STATUS)).toBe('cancelled');
    const l = ledgers.get(taskId)!;
    // steps 4 and 5 never started; undos run newest first
    expect(l.calls.filter(([kind]) => kind === 'provision')).toEqual([
      ['provision', 1],
      ['provision', 2],
      ['provision', 3],
    ]);
    const undoOrder = l.calls.filter(([kind]) => kind === 'deprovision').map(([, step]) => step);
    expect(undoOrder).toEqual([...undoOrder].sort((a, b) => b - a));
    return l;
  }

  test('a cancel mid-way undoes exactly the finished steps (the one in flight gave up)', async () => {
    inFlight.set(3, 'gives-up');
    const l = await cancelDuringStep3();
    expect(l.undone).toEqual([2, 1]);
    expect(l.applied.size).toBe(0);
  });

  test('an undo that cannot finish ends the workflow failed with the reason, instead of spinning', async () => {
    inFlight.set(3, 'gives-up');
    const taskId = await h.startTask(demo.provisionEnvironmentTool, { name: 'stuck', steps: 5, stepMs: 0 });
    await h.waitFor(taskId, () => ledgers.get(taskId)?.calls.length === 3); // step 3's activity is running
    await h.store.cancel(taskId);
    const failure = await h
      .handle(taskId)
      .result()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    const chain: string[] = [];
    // (errors from the SDK come from another realm than jest's: no instanceof Error)
    for (let e = failure as { message?: string; cause?: unknown } | undefined; e?.message !== undefined; e = e.cause as typeof e)
      chain.push(e.message);
    expect(chain.join(' / ')).toMatch(/the cloud API refuses to delete it/);
    const description = await h.handle(taskId).describe();
    expect(description.status.name).toBe('FAILED');
    expect(description.typedSearchAttributes.get(MCP_TASK_STATUS)).toBe('failed');
    // the task reads what happened: failed, its error naming the step that could not be undone
    expect((await h.store.read(taskId))?.state).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/could not be undone after a cancel.*the cloud API refuses to delete it/) },
    });
  });

  test('a step that finishes despite the cancel is undone too', async () => {
    inFlight.set(3, 'finishes-anyway');
    const l = await cancelDuringStep3();
    expect(l.undone).toEqual([3, 2, 1]);
    expect(l.applied.size).toBe(0);
  });
});

describe('waitAndEcho', () => {
  test('waits on a durable timer, then echoes', async () => {
    const started = Date.now();
    const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'hello', seconds: 1 });
    const waiting = await h.waitFor(taskId, (t) => t.statusMessage !== undefined);
    expect(waiting).toMatchObject({ statusMessage: 'waiting 1 s', state: { status: 'working' } });
    const done = await h.waitFor(taskId, (t) => t.state.status === 'completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(done.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'hello' }], isError: false } });
    expect(await historyEventTypes(h.handle(taskId))).toContain('EVENT_TYPE_TIMER_FIRED');
  });

  test('a cancel mid-wait ends it cancelled', async () => {
    const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'never', seconds: 600 });
    await h.waitFor(taskId, (t) => t.statusMessage === 'waiting 600 s');
    await h.store.cancel(taskId);
    await expect(h.handle(taskId).result()).rejects.toThrow();
    const description = await h.handle(taskId).describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(description.typedSearchAttributes.get(MCP_TASK_STATUS)).toBe('cancelled');
    expect(await historyEventTypes(h.handle(taskId))).toContain('EVENT_TYPE_TIMER_CANCELED');
  });
});
