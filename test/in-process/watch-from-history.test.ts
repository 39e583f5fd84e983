/**
 * A watched task read from the history events that woke its watch, with no describe(): its end
 * from its run's completion event, a progress update from its memo event. Each answer is what a
 * fresh read of the task says.
 */
import { performance } from 'node:perf_hooks';
import { TaskWatcher } from '../../src/tasks/watch/task-watcher';
import type { HistoryEvent } from '../../src/tasks/watch/history-long-poll';
import type { TaskSnapshot } from '../../src/tasks/task-snapshot';
import { countDescribes, untilWatchAnswers } from '../support/describes';
import { call, createTask, pollTask } from '../support/mcp';
import { useStack } from '../support/stack';

const stack = useStack({ tokens: 'alice:tok-alice-0123456789' });
const alice = { headers: { authorization: 'Bearer tok-alice-0123456789' } };
/** alice's principal, as the server names a static token's owner. */
const ALICE = 'client:alice';
const get = (taskId: string, opts = alice, url = stack.url) => call(url, 'tasks/get', { taskId }, opts);

afterEach(() => jest.restoreAllMocks());

describe("a watched task's end, from its run's completion event", () => {
  /** The completion event of a closed task's run, as the watch's long-poll gets it. */
  async function completionOf(taskId: string) {
    const events = await stack.temporal.client.workflow.getHandle(taskId).fetchHistory();
    return events.events!.at(-1)!;
  }

  test('polls of a watched task that completes: no describe() from the watch answering to the end, and the same end as a fresh read', async () => {
    const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'from the event', seconds: 3 }, alice);
    await untilWatchAnswers(() => get(taskId), stack.server!.client);
    const describes = countDescribes(stack.server!.client);
    const done = await pollTask(stack.url, taskId, undefined, 30_000, { ...alice, intervalMs: 50 });
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'from the event' }] } });
    expect(describes.of(taskId)).toBe(0);
    const other = await stack.serve({ tokens: 'alice:tok-alice-0123456789' });
    const fresh = await other.server.store.read(taskId, ALICE);
    expect(await stack.server!.server.store.read(taskId, ALICE)).toEqual(fresh);
    expect(await get(taskId)).toEqual(await get(taskId, alice, other.url));
  });

  test('where the event does not say it all, nothing is answered from it (the task is read from Temporal)', async () => {
    const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'x', seconds: 0 }, alice);
    const running = (await stack.server!.server.store.read(taskId, ALICE))!;
    await pollTask(stack.url, taskId, undefined, 30_000, alice);
    const completion = await completionOf(taskId);
    const store = stack.server!.server.store;
    const woke = (event: HistoryEvent) => ({ cursor: { workflowId: taskId }, completion: event, polledAt: performance.now() });
    expect(await store.fromHistory({ ...running, cancelRequested: true }, woke(completion))).toBeUndefined();
    const next = { ...completion.workflowExecutionCompletedEventAttributes!, newExecutionRunId: 'a-next-run' };
    expect(await store.fromHistory(running, woke({ ...completion, workflowExecutionCompletedEventAttributes: next }))).toBeUndefined();
    const started = (await stack.temporal.client.workflow.getHandle(taskId).fetchHistory()).events![0];
    expect(await store.fromHistory(running, woke(started))).toBeUndefined();
    expect(await store.fromHistory(running, woke(completion))).toMatchObject({ state: { status: 'completed' } });
  });
});

describe("a watched task's progress, from its memo event", () => {
  test('each progress update of a task running timers reaches the watch with no describe(), as a fresh read on another replica says', async () => {
    const taskId = await createTask(stack.url, 'stepped_job', { steps: 4, ms: 1_500 }, alice);
    const { server, client } = stack.server!;
    const other = await stack.serve({ tokens: 'alice:tok-alice-0123456789' });
    const watcher = new TaskWatcher(client, server.store, 5_000);
    const seen: Array<{ watched: TaskSnapshot; fresh: TaskSnapshot | undefined }> = [];
    let describes: ReturnType<typeof countDescribes> | undefined;
    const done = new Promise<void>((resolve) => {
      void watcher
        .watch(taskId, ALICE, (task) => {
          if (!task || task.state.status !== 'working') return resolve();
          // read at once on another replica: the next event is a timer firing 1.5 s later
          const fresh = other.server.store.read(taskId, ALICE);
          void fresh.then((f) => seen.push({ watched: task, fresh: f }));
        })
        .then(() => (describes = countDescribes(client)));
    });
    await done;
    expect(describes!.of(taskId)).toBe(0);
    const messages = seen.map((s) => s.watched.statusMessage);
    expect(messages).toEqual(expect.arrayContaining(['step 3 of 4', 'step 4 of 4']));
    for (const { watched, fresh } of seen) expect(watched).toEqual({ ...fresh, ttlMs: expect.any(Number) });
    expect((await get(taskId)).status).toBe('completed');
    watcher.stopAll();
  });

  test('polled: the watch answers each next message with no describe()', async () => {
    const taskId = await createTask(stack.url, 'stepped_job', { steps: 5, ms: 1_000 }, alice);
    await untilWatchAnswers(() => get(taskId), stack.server!.client);
    const describes = countDescribes(stack.server!.client);
    const messages = new Set<string>();
    await pollTask(stack.url, taskId, (t) => (messages.add(t.statusMessage), t.status === 'completed'), 30_000, {
      ...alice,
      intervalMs: 100,
    });
    expect(describes.of(taskId)).toBe(0);
    expect([...messages]).toEqual(expect.arrayContaining(['step 4 of 5', 'step 5 of 5']));
  });
});
