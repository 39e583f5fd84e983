/**
 * tasks/get of a polled task (src/tasks/watch/polled-tasks.ts): from its second read a running task is
 * watched, and later polls answer from the watch with no describe() in Temporal, yet every
 * answer is what Temporal says: an answer or a cancel on this replica is seen at the next read,
 * one on another replica as soon as its history event reaches the watch.
 */
import { getEventListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { inputResponsesSignal } from '../../src/contract';
import { PolledTasks } from '../../src/tasks/watch/polled-tasks';
import { waitForTaskEvent } from '../../src/tasks/watch/history-long-poll';
import { TaskWatcher } from '../../src/tasks/watch/task-watcher';
import { countDescribes as countDescribesOf, untilWatchAnswers as untilWatchAnswersOf } from '../support/describes';
import { call, createTask, pollTask, rpc } from '../support/mcp';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

const stack = useStack({ tokens: 'alice:tok-alice-0123456789,bob:tok-bob-0123456789' });
const alice = { headers: { authorization: 'Bearer tok-alice-0123456789' } };
const bob = { headers: { authorization: 'Bearer tok-bob-0123456789' } };
/** alice's principal, as the server names a static token's owner. */
const ALICE = 'client:alice';

const get = (taskId: string, opts = alice, url = stack.url) => call(url, 'tasks/get', { taskId }, opts);

const countDescribes = (client = stack.server!.client) => countDescribesOf(client);
const untilWatchAnswers = (read: () => Promise<unknown>, client = stack.server!.client) => untilWatchAnswersOf(read, client);
const approval = (approved: boolean) => ({ approval: { action: 'accept', content: { approved } } });

async function waitingForApproval(opts = alice, url = stack.url): Promise<string> {
  const taskId = await createTask(url, 'approve_expense', { amount: 12, description: 'taxi' }, opts);
  await pollTask(url, taskId, (t) => t.status === 'input_required', 30_000, opts);
  return taskId;
}

afterEach(() => jest.restoreAllMocks());

test('a polled task waiting for input: from the second read no describe(), the same answer as Temporal, and an answer is seen at the next read', async () => {
  const taskId = await waitingForApproval();
  const describes = countDescribes();
  const first = await get(taskId);
  await untilWatchAnswers(() => get(taskId));
  describes.reset();
  // the same answer, but for ttlMs: a running task's counts from now, whoever answers
  for (let i = 0; i < 20; i++) {
    const answer = await get(taskId);
    expect(answer).toEqual({ ...first, ttlMs: expect.any(Number) });
    expect(Date.parse(answer.createdAt) + answer.ttlMs).toBeGreaterThanOrEqual(Date.now() + 86_400_000 - 100);
  }
  expect(describes.count).toBe(0);
  expect(await stack.server!.server.store.read(taskId, ALICE)).toMatchObject({
    state: { status: 'input_required' },
    statusMessage: first.statusMessage,
  });

  await call(stack.url, 'tasks/update', { taskId, inputResponses: approval(true) }, alice);
  const next = await get(taskId); // not the watch's read from before the answer
  expect(next.status).not.toBe('input_required');
  expect((await pollTask(stack.url, taskId, undefined, 30_000, alice)).status).toBe('completed');
});

test("an answer sent through another replica reaches this replica's polls through the watch (the 2025-11-25 tasks/get too)", async () => {
  const other = await stack.serve({ tokens: 'alice:tok-alice-0123456789' });
  const taskId = await waitingForApproval();
  await get(taskId);
  await get(taskId);
  const legacy = { ...alice, revision: '2025-11-25' as const };
  expect((await call(stack.url, 'tasks/get', { taskId }, legacy)).status).toBe('input_required');
  await call(other.url, 'tasks/update', { taskId, inputResponses: approval(false) }, alice);
  const done = await pollTask(stack.url, taskId, (t) => t.status === 'completed', 30_000, { ...alice, intervalMs: 20 });
  expect(done.result.content[0].text).toMatch(/rejected/);
  // 2025-11-25 reports a result with isError (the rejection) as failed
  expect((await call(stack.url, 'tasks/get', { taskId }, legacy)).status).toBe('failed');
});

test('a cancel on this replica is seen at the next read: cancelling, then cancelled', async () => {
  const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'x', seconds: 600 }, alice);
  await untilWatchAnswers(() => get(taskId));
  await call(stack.url, 'tasks/cancel', { taskId }, alice);
  const next = await get(taskId);
  expect(next.status === 'cancelled' || /^cancelling/.test(next.statusMessage)).toBe(true);
  expect((await pollTask(stack.url, taskId, undefined, 30_000, alice)).status).toBe('cancelled');
});

test("2025-11-25: a watched task cancelled on this replica reads cancelled at once (that revision's rule)", async () => {
  const legacy = { ...alice, revision: '2025-11-25' as const };
  const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'x', seconds: 600 }, alice);
  await untilWatchAnswers(() => call(stack.url, 'tasks/get', { taskId }, legacy));
  await call(stack.url, 'tasks/cancel', { taskId }, legacy);
  expect((await call(stack.url, 'tasks/get', { taskId }, legacy)).status).toBe('cancelled');
});

test('a watched task that continues as new: its polls follow the chain (each next question, then the end)', async () => {
  const tokens = 'alice:tok-alice-0123456789';
  const [a, b] = [await stack.serve({ tokens, config: { historyLimit: 10 } }), await stack.serve({ tokens, config: { historyLimit: 10 } })];
  const approvers = ['ann', 'bob', 'cy', 'dee'];
  const taskId = await createTask(a.url, 'collect_approvals', { approvers }, alice);
  const handle = stack.temporal.client.workflow.getHandle(taskId);
  const firstRun = (await handle.describe()).runId;
  const asked = (t: any) => Object.keys(t.inputRequests ?? {});
  await pollTask(a.url, taskId, (t) => asked(t).includes('approval-0'), 30_000, alice);
  await untilWatchAnswers(() => get(taskId, alice, a.url), a.client);
  for (let i = 0; i < approvers.length; i++) {
    // answered through the other replica: only the watch can tell a's polls
    await pollTask(a.url, taskId, (t) => asked(t).includes(`approval-${i}`), 30_000, { ...alice, intervalMs: 20 });
    await call(
      b.url,
      'tasks/update',
      { taskId, inputResponses: { [`approval-${i}`]: { action: 'accept', content: { approved: true } } } },
      alice,
    );
  }
  const done = await pollTask(a.url, taskId, undefined, 30_000, { ...alice, intervalMs: 20 });
  expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Approved by all 4: ann, bob, cy, dee.' }] } });
  expect((await handle.describe()).runId).not.toBe(firstRun); // the chain continued as new on the way
});

test("another caller's polls of the task: not found, every time, and never served from the owner's watch", async () => {
  const taskId = await waitingForApproval();
  await get(taskId);
  await get(taskId);
  for (let i = 0; i < 3; i++) {
    const reply = await rpc(stack.url, 'tasks/get', { taskId }, bob);
    expect(reply.body.error).toMatchObject({ code: -32602 });
  }
  await call(stack.url, 'tasks/cancel', { taskId }, alice);
});

test('with watchPolledTasks off (--no-watch-polled-tasks), every poll is a describe()', async () => {
  const off = await stack.serve({ tokens: 'alice:tok-alice-0123456789', config: { watchPolledTasks: false } });
  const taskId = await waitingForApproval(alice, off.url);
  const describes = countDescribes(off.client);
  for (let i = 0; i < 5; i++) expect((await get(taskId, alice, off.url)).status).toBe('input_required');
  expect(describes.of(taskId)).toBe(5);
  await call(off.url, 'tasks/cancel', { taskId }, alice);
});

test('a watched task asked to cancel elsewhere is read from Temporal at every poll, and the read after it closed is its end', async () => {
  const other = await stack.serve({ tokens: 'alice:tok-alice-0123456789' });
  // the wait after the saga is shielded: the cancel is requested, the task runs on with no activity
  const taskId = await createTask(stack.url, 'saga_job', { steps: 1, stepMs: 0, afterMs: 1_500, afterShielded: true }, alice);
  await pollTask(stack.url, taskId, (t) => /all 1 steps done/.test(t.statusMessage ?? ''), 30_000, alice);
  await untilWatchAnswers(() => get(taskId));
  await call(other.url, 'tasks/cancel', { taskId }, alice);
  await pollTask(stack.url, taskId, (t) => /^cancelling/.test(t.statusMessage ?? ''), 30_000, { ...alice, intervalMs: 20 });
  const describes = countDescribes();
  for (let i = 0; i < 3; i++) await get(taskId);
  expect(describes.of(taskId)).toBeGreaterThanOrEqual(3);
  await stack.temporal.client.workflow
    .getHandle(taskId)
    .result()
    .catch(() => undefined);
  expect((await get(taskId)).status).toBe('cancelled');
});

test('a task with an activity running is read from Temporal at every poll (its heartbeats write no history event)', async () => {
  const taskId = await createTask(stack.url, 'export_report', { rows: 30_000, msPerChunk: 250 }, alice);
  await pollTask(stack.url, taskId, (t) => /rows/.test(t.statusMessage ?? ''), 20_000, alice);
  const describes = countDescribes();
  for (let i = 0; i < 5; i++) await get(taskId);
  expect(describes.count).toBeGreaterThanOrEqual(5);
  await call(stack.url, 'tasks/cancel', { taskId }, alice);
});

describe("PolledTasks on its own (the server's store and a watcher of its own)", () => {
  const polledTasks = (opts: { keepMs?: number; max?: number } = {}) => {
    const { server, client } = stack.server!;
    const watcher = new TaskWatcher(client, server.store, 5_000);
    const polled = new PolledTasks(server.store, watcher, {
      keepMs: opts.keepMs ?? 60_000,
      maxSubscribedTasks: opts.max ?? 100,
      maxSubscribedTasksPerCaller: opts.max ?? 100,
    });
    return { polled, watcher, close: () => (polled.close(), watcher.stopAll()) };
  };

  test("the watch a poll starts begins from that poll's read: no describe() of its own when nothing happened in between", async () => {
    const taskId = await waitingForApproval();
    const { polled, watcher, close } = polledTasks();
    const watches = jest.spyOn(watcher, 'watch');
    try {
      const describes = countDescribes();
      await polled.read(taskId, ALICE);
      const second = await polled.read(taskId, ALICE);
      expect(watches).toHaveBeenCalledTimes(1);
      const watch = await watches.mock.results[0].value;
      expect(watch.current()?.task).toBe(second);
      expect(describes.of(taskId)).toBe(2); // the two reads; the watch's catch-up found nothing past the second
      expect(await polled.read(taskId, ALICE)).toEqual({ ...second, ttlMs: expect.any(Number) });
      expect(describes.of(taskId)).toBe(2);
    } finally {
      close();
      await call(stack.url, 'tasks/cancel', { taskId }, alice);
    }
  });

  test('a seed older than the history the watch catches up with is not taken: the watch reads the task itself', async () => {
    const taskId = await waitingForApproval();
    const { watcher, close } = polledTasks();
    try {
      const read = (await stack.server!.server.store.read(taskId, ALICE))!;
      const older = { ...read, historyLength: read.historyLength! - 1, statusMessage: 'before the last event' };
      const describes = countDescribes();
      const watch = await watcher.watch(taskId, ALICE, () => undefined, { task: older, readStartedAt: performance.now() });
      expect(describes.of(taskId)).toBe(1);
      expect(watch.current()?.task).toEqual({ ...read, ttlMs: expect.any(Number) });
    } finally {
      close();
      await call(stack.url, 'tasks/cancel', { taskId }, alice);
    }
  });

  test('a watch nobody reads for keepMs is dropped; past the bound tasks are read from Temporal', async () => {
    const [a, b] = [await waitingForApproval(), await waitingForApproval()];
    const { polled, close } = polledTasks({ keepMs: 1_000, max: 1 });
    try {
      for (const id of [a, b, a, b]) expect(await polled.read(id, ALICE)).toMatchObject({ state: { status: 'input_required' } });
      expect(polled.watched).toBe(1);
      const describes = countDescribes();
      await polled.read(b, ALICE);
      expect(describes.of(b)).toBe(1); // b: no place left for its watch
      await waitFor(async () => polled.watched === 0 || undefined, 10_000);
      expect(await polled.read(a, ALICE)).toMatchObject({ state: { status: 'input_required' } });
    } finally {
      close();
      for (const id of [a, b]) await call(stack.url, 'tasks/cancel', { taskId: id }, alice);
    }
  });

  test('an ended task is no longer watched, and reads it as the store does', async () => {
    const taskId = await waitingForApproval();
    const { polled, close } = polledTasks();
    try {
      await untilWatchAnswers(() => polled.read(taskId, ALICE));
      expect(polled.watched).toBe(1);
      const started = performance.now();
      await call(stack.url, 'tasks/update', { taskId, inputResponses: approval(true) }, alice);
      await waitFor(async () => (await polled.read(taskId, ALICE))?.state.status === 'completed' || undefined, 30_000);
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(polled.watched).toBe(0);
      expect(await polled.read(taskId, ALICE)).toEqual(await stack.server!.server.store.read(taskId, ALICE));
    } finally {
      close();
    }
  });

  test("while the watch's Temporal calls fail, reads go to Temporal (and fail with it), never to what the watch read before", async () => {
    const taskId = await waitingForApproval();
    const { polled, close } = polledTasks();
    try {
      await untilWatchAnswers(() => polled.read(taskId, ALICE));
      const spy = jest
        .spyOn(stack.server!.client.workflowService, 'describeWorkflowExecution')
        .mockRejectedValue(new Error('Temporal unavailable (injected)'));
      // the answer bypasses this store (so no local write to note): only the watch's next read could tell it
      await stack.temporal.client.workflow.getHandle(taskId).signal(inputResponsesSignal, approval(true));
      // once the watch's read has failed, every read goes to Temporal (with the watch's stale read, none would fail)
      const failure = await waitFor(
        () =>
          polled.read(taskId, ALICE).then(
            () => undefined,
            (err: Error) => err,
          ),
        10_000,
        50,
      );
      expect((failure.cause as Error | undefined)?.message ?? failure.message).toBe('Temporal unavailable (injected)');
      await expect(polled.read(taskId, ALICE)).rejects.toThrow();
      spy.mockRestore();
      await waitFor(async () => (await polled.read(taskId, ALICE))?.state.status === 'completed' || undefined, 30_000);
    } finally {
      close();
    }
  });
});

test("a watch's history long-polls leave no listener on its abort signal (the client never removes the one it adds per call)", async () => {
  const taskId = await waitingForApproval();
  const watch = new AbortController();
  for (let i = 0; i < 20; i++) await waitForTaskEvent(stack.server!.client, { workflowId: taskId }, watch.signal, 5_000);
  expect(getEventListeners(watch.signal, 'abort')).toHaveLength(0);
  await call(stack.url, 'tasks/cancel', { taskId }, alice);
});
