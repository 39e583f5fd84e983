/**
 * The demo tools' workflows (examples/demo/workflows.ts) with mocked activities: each decision
 * and each compensation, as tasks/get sees it.
 */
import { Context } from '@temporalio/activity';
import type { DeprovisionStepInput, ProvisionStepInput } from '../../examples/demo/activities';
import { MCP_TASK_STATUS } from '../../src/contract';
import { accept, demo, type Harness, historyEventTypes, startHarness } from './env';

/** Every activity call, per task: ['provision', step] / ['deprovision', step]. */
const calls = new Map<string, Array<[string, number]>>();
const record = (key: string, entry: [string, number]) => {
  const taskId = key.split(':')[0];
  calls.set(taskId, [...(calls.get(taskId) ?? []), entry]);
};
/** Steps that block until cancelled (the rest finish at once). */
const blockingSteps = new Set<number>();

const activities = {
  async provisionStep(input: ProvisionStepInput): Promise<void> {
    record(input.idempotencyKey, ['provision', input.step]);
    if (!blockingSteps.has(input.step)) return;
    const ctx = Context.current();
    for (;;) {
      ctx.heartbeat();
      await ctx.sleep(100); // throws once the workflow cancels it
    }
  },
  async deprovisionStep(input: DeprovisionStepInput): Promise<void> {
    record(input.idempotencyKey, ['deprovision', input.step]);
  },
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: demo.tools, activities });
});

afterAll(async () => {
  await h?.teardown();
});

beforeEach(() => blockingSteps.clear());

async function approveWith(answer: unknown) {
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 120, description: 'conference' });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  await h.store.sendInput(taskId, undefined, { approval: answer });
  return h.waitFor(taskId, (t) => t.state.status === 'completed');
}

describe('approveExpense', () => {
  test('approved', async () => {
    const done = await approveWith(accept({ approved: true }));
    expect(done.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'Expense of 120 for "conference" was approved.' }], isError: false } });
  });

  test('declined (the elicitation itself)', async () => {
    const done = await approveWith({ action: 'decline' });
    expect(done.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'Expense of 120 not approved: the request was declined.' }], isError: true } });
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
    expect(done.statusMessage).toBeUndefined(); // a finished task carries no statusMessage
    expect(calls.get(taskId)).toEqual([['provision', 1], ['provision', 2], ['provision', 3]]);
  });

  test('a cancel mid-way undoes exactly the finished steps, newest first', async () => {
    blockingSteps.add(3);
    const taskId = await h.startTask(demo.provisionEnvironmentTool, { name: 'staging', steps: 5, stepMs: 0 });
    const busy = await h.waitFor(taskId, (t) => t.statusMessage?.startsWith('step 3/5') ?? false);
    expect(busy.state.status).toBe('working');
    expect(busy.statusMessage).toBe('step 3/5: provisioning compute for staging');

    await h.store.cancel(taskId);
    expect((await h.store.read(taskId))?.state.status).toBe('cancelled');
    await expect(h.handle(taskId).result()).rejects.toThrow();

    // steps 1 and 2 finished and are undone; 3 was interrupted, 4 and 5 never started
    expect(calls.get(taskId)).toEqual([['provision', 1], ['provision', 2], ['provision', 3], ['deprovision', 2], ['deprovision', 1]]);
    expect((await h.store.read(taskId))?.state).toEqual({ status: 'cancelled' });
    const description = await h.handle(taskId).describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(description.typedSearchAttributes.get(MCP_TASK_STATUS)).toBe('cancelled');
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
