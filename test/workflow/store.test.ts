/** The task store against races Temporal can produce: an answer arriving as the task closes. */
import { Client } from '@temporalio/client';
import { TemporalTaskStore } from '../../src/tasks/temporal-task-store';
import { TASK_RUNTIME_REVISION } from '../../src/contract';
import { accept, demo, type Harness, historyEventTypes, startHarness } from './env';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ tools: demo.tools });
});

afterAll(async () => {
  await h?.teardown();
});

test('a tasks/update racing the task\'s close answers the closed state, not the stale one', async () => {
  const taskId = await h.startTask(demo.approveExpenseTool, { amount: 5, description: 'racy' });
  await h.waitFor(taskId, (t) => t.state.status === 'input_required');
  // the task closes between the store's read and its signal
  const racing = new Client({
    connection: h.env.connection,
    interceptors: {
      workflow: [
        {
          async signal(input, next) {
            await h.handle(input.workflowExecution.workflowId).terminate('closed while the answer was on its way');
            return next(input);
          },
        },
      ],
    },
  });
  const store = new TemporalTaskStore(racing, { taskQueue: h.taskQueue, ttlMs: 3_600_000, temporalTimeoutMs: 10_000, historyLimit: 10_000, searchAttributes: true });
  const after = await store.sendInput(taskId, undefined, { approval: accept({ approved: true }) });
  expect(after?.state).toEqual({ status: 'failed', error: { code: -32603, message: 'The task was terminated in Temporal: closed while the answer was on its way' } });
});

test('a tasks/cancel racing the task\'s completion answers completed (Temporal accepts a cancel of a closed workflow and ignores it)', async () => {
  const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'first', seconds: 1 });
  await h.waitFor(taskId, (t) => t.statusMessage === 'waiting 1 s');
  // the task completes between the store's read and its cancel request
  const racing = new Client({
    connection: h.env.connection,
    interceptors: {
      workflow: [
        {
          async cancel(input, next) {
            await h.handle(input.workflowExecution.workflowId).result();
            return next(input);
          },
        },
      ],
    },
  });
  const store = new TemporalTaskStore(racing, { taskQueue: h.taskQueue, ttlMs: 3_600_000, temporalTimeoutMs: 10_000, historyLimit: 10_000, searchAttributes: true });
  const answer = await store.cancel(taskId);
  expect(answer?.state).toEqual({ status: 'completed', result: { content: [{ type: 'text', text: 'first' }], isError: false } });
  expect(answer?.cancelRequested).toBeUndefined();
});

test('a task the store starts is of today\'s runtime revision: its history carries no patch marker, its events are what the tool does', async () => {
  const taskId = await h.startTask(demo.waitAndEchoTool, { text: 'lean', seconds: 1 });
  await h.handle(taskId).result();
  const { memo } = await h.handle(taskId).describe();
  expect(memo?.mcpTask).toMatchObject({ runtime: TASK_RUNTIME_REVISION });
  // start, 2 workflow tasks, the timer, one progress write ("waiting 1 s"), the final McpTaskStatus, completed
  const events = (await historyEventTypes(h.handle(taskId))).map((t) => t.replace('EVENT_TYPE_', ''));
  expect(events).toEqual([
    'WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED', 'TIMER_STARTED', 'WORKFLOW_PROPERTIES_MODIFIED',
    'TIMER_FIRED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED', 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', 'WORKFLOW_EXECUTION_COMPLETED',
  ]);
});
