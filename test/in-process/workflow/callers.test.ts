/**
 * What careless callers cost (issue 32): a running task's ttlMs never lies in the past, and the
 * running-task cap counts each task once whatever the visibility lag, with bounded state.
 */
import { RunningTaskQuota, RunningTaskQuotaError } from '../../../src/tasks/list/quotas';
import { toTask } from '../../../src/mcp/rev2025-11-25/wire';
import { toDetailedTask } from '../../../src/mcp/rev2026-07-28/wire';
import { demo, type Harness, startHarness } from '../../support/workflow-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: demo.tools });
});

afterAll(async () => {
  await h?.teardown();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a running task past its first ttlMs advertises a ttlMs that ends in the future, in both revisions', async () => {
  const store = h.storeWith({ ttlMs: 1_000, answerWithinMs: 0, anonymousAnswerWithinMs: 0 }); // waits past its ttl on purpose
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 5, description: 'long wait' }, store);
  await sleep(1_500);
  const task = await h.waitFor(taskId, (t) => t.state.status === 'input_required', { store });
  const now = Date.now();
  // createdAt + ttlMs is when a client may drop the task: never before the task could end
  expect(Date.parse(task.createdAt) + task.ttlMs).toBeGreaterThanOrEqual(now + 1_000 - 50);
  const modern = toDetailedTask(task, 1_000);
  const rev2025 = toTask(task, 1_000);
  expect(Date.parse(modern.createdAt) + (modern.ttlMs as number)).toBeGreaterThan(now);
  expect(Date.parse(rev2025.createdAt) + (rev2025.ttl as number)).toBeGreaterThan(now);
});

test('the per-caller cap counts each running task once after visibility caught up with a burst', async () => {
  const cap = 10;
  // a lag window far longer than the test: every start of this replica is "recent"
  const store = h.storeWith({ maxRunningTasksPerCaller: cap, quotaLagMs: 60_000 });
  const principal = `burst-${Date.now()}`;
  const start = () =>
    store.start({
      tool: demo.approveExpenseTool.name,
      workflowType: demo.approveExpenseTool.workflow!.name,
      arguments: { amount: 1, description: 'burst' },
      owner: principal,
      summary: 'burst',
    });
  for (let i = 0; i < 5; i++) await start();
  // visibility has all five, and the cached count is older than its refresh period
  for (let deadline = Date.now() + 10_000; (await store.listOwned(principal)).tasks.length < 5;) {
    if (Date.now() > deadline) throw new Error('the burst never became visible');
    await sleep(100);
  }
  await sleep(1_200);
  for (let i = 5; i < cap; i++) await start(); // refused at the 6th by a count holding the five twice
  await expect(start()).rejects.toBeInstanceOf(RunningTaskQuotaError);
});

test('the state kept per caller is bounded: callers without a recent start are forgotten', async () => {
  const perCaller = new RunningTaskQuota(h.client, {
    maxRunningTasksPerCaller: 1_000_000,
    maxRunningTasks: 0,
    quotaLagMs: 0,
    refreshMs: 0,
    maxStaleMs: 0,
  });
  for (let i = 0; i < 1_100; i++) await perCaller.admit(`one-off-${i}`);
  expect(perCaller.trackedCallers).toBeLessThanOrEqual(1_000);
});

test('an abandoned approval does not hold a cap for good: unanswered past its limit it ends failed and its place is free again', async () => {
  const store = h.storeWith({ maxRunningTasksPerCaller: 1, quotaLagMs: 0, answerWithinMs: 1_000 });
  const principal = `abandoner-${Date.now()}`;
  const start = () =>
    store.start({
      tool: demo.approveExpenseTool.name,
      workflowType: demo.approveExpenseTool.workflow!.name,
      arguments: { amount: 1, description: 'abandoned' },
      owner: principal,
      summary: 'abandoned',
    });
  const { taskId } = await start();
  await expect(start()).rejects.toBeInstanceOf(RunningTaskQuotaError);
  const ended = await h
    .handle(taskId)
    .result()
    .catch((err: Error) => err);
  expect(String((ended as { cause?: Error }).cause?.message)).toMatch(/nobody answered approval within 1000 ms/);
  expect((await store.read(taskId, principal))?.state).toMatchObject({ status: 'failed' });
  for (let deadline = Date.now() + 10_000; ; await sleep(200)) {
    const admitted = await start().then(
      (t) => t.taskId,
      (err: unknown) => (err instanceof RunningTaskQuotaError && Date.now() < deadline ? undefined : Promise.reject(err)),
    );
    if (admitted) return void (await h.handle(admitted).terminate('test over'));
  }
});

test("an anonymous caller's approval ends at the anonymous limit, an authenticated one's does not", async () => {
  const store = h.storeWith({ anonymousAnswerWithinMs: 800, ownerKey: 'k'.repeat(32) });
  const start = (owner?: string) =>
    store.start({
      tool: demo.approveExpenseTool.name,
      workflowType: demo.approveExpenseTool.workflow!.name,
      arguments: { amount: 1, description: 'anonymous' },
      owner,
      summary: 'anonymous',
    });
  const [anonymous, owned] = [await start(), await start('carol')];
  const ended = await h
    .handle(anonymous.taskId)
    .result()
    .catch((err: Error) => err);
  expect(String((ended as { cause?: Error }).cause?.message)).toMatch(/nobody answered approval within 800 ms/);
  expect((await h.handle(owned.taskId).describe()).status.name).toBe('RUNNING');
  await h.handle(owned.taskId).terminate('test over');
});
