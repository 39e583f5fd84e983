/** The task handle's text and the ended task's result. */
import { TaskHandleSchema } from '../../../../src/mcp/task-handles/handle-schema';
import { handleResult, outcomeResult, shortHandleResult, taskToolNames } from '../../../../src/mcp/task-handles/handle-text';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

const base: Omit<TaskSnapshot, 'state'> = {
  taskId: 'task_X',
  tool: 'approve_expense',
  createdAt: '2026-01-01T00:00:00Z',
  lastUpdatedAt: '2026-01-01T00:00:00Z',
  ttlMs: 1000,
  startTtlMs: 1000,
};

test('the handle: text and structuredContent say the same, questions come with their schema', () => {
  const requestedSchema = { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] };
  const task: TaskSnapshot = {
    ...base,
    statusMessage: 'waiting for approval',
    state: {
      status: 'input_required',
      inputRequests: {
        approval: { method: 'elicitation/create', params: { mode: 'form', message: 'Approve?', requestedSchema } } as never,
      },
    },
  };
  const result = handleResult(task, taskToolNames('task_'), 20_000);
  const text = (result.content[0] as { text: string }).text;
  expect(text).toContain('taskId: task_X');
  expect(text).toContain('status: input_required (waiting for approval)');
  expect(text).toContain('"approval": Approve?');
  expect(text).toContain(JSON.stringify(requestedSchema));
  expect(text).toContain('task_respond');
  expect(result.structuredContent).toMatchObject({
    taskId: 'task_X',
    status: 'input_required',
    statusMessage: 'waiting for approval',
    next: 'task_respond',
  });
  expect(result.isError).toBeUndefined();
});

test("ended tasks: the tool's own result (isError kept), a failure as isError with the reason", () => {
  const own = { content: [{ type: 'text' as const, text: 'rejected' }], isError: true };
  expect(outcomeResult({ ...base, state: { status: 'completed', result: own } })).toBe(own);
  const failed = outcomeResult({ ...base, state: { status: 'failed', error: { code: -32603, message: 'boom' } } });
  expect(failed.isError).toBe(true);
  expect((failed.content[0] as { text: string }).text).toContain('boom');
  expect(outcomeResult({ ...base, state: { status: 'cancelled' } }).structuredContent).toMatchObject({ status: 'cancelled' });
});

describe('handles as TaskHandleSchema says, full and short', () => {
  const names = taskToolNames('task_');
  const question = {
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } } } },
  } as never;
  const working: TaskSnapshot = { ...base, statusMessage: 'step 2/3', progress: { done: 2, total: 3 }, state: { status: 'working' } };
  const asking: TaskSnapshot = {
    ...base,
    statusMessage: 'waiting',
    state: { status: 'input_required', inputRequests: { go_on: question } },
  };
  const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

  test('full: the next tool with its exact arguments and the instructions, in structuredContent too', () => {
    const full = TaskHandleSchema.parse(handleResult(asking, names, 20_000).structuredContent);
    expect(full).toMatchObject({
      next: 'task_respond',
      nextArguments: { taskId: 'task_X', responses: { go_on: { action: 'accept', content: {} } } },
      inputRequests: { go_on: { params: { requestedSchema: { type: 'object' } } } },
    });
    expect(full.instructions).toMatch(/Never invent an answer/);
    const wait = TaskHandleSchema.parse(handleResult(working, names, 20_000).structuredContent);
    expect(wait).toMatchObject({ next: 'task_wait', nextArguments: { taskId: 'task_X' }, progress: { done: 2, total: 3 } });
  });

  test('short: a line of what changed; no instructions; the next tool, its arguments only when more than the taskId', () => {
    const moved = shortHandleResult(working, names, { status: 'working', statusMessage: 'step 1/3', keys: [] });
    expect(text(moved)).toBe('Working: step 2/3.');
    const data = TaskHandleSchema.parse(moved.structuredContent);
    expect(data).toEqual({
      taskId: 'task_X',
      status: 'working',
      statusMessage: 'step 2/3',
      progress: { done: 2, total: 3 },
      next: 'task_wait',
    });
    expect(text(shortHandleResult(working, names, { status: 'working', statusMessage: 'step 2/3', keys: [] }))).toBe(
      'No change, still working: step 2/3.',
    );
    expect(text(shortHandleResult(working, names, { status: 'input_required', keys: ['go_on'] }))).toBe(
      'Answered, working again: step 2/3. Next: task_wait.',
    );
    const still = shortHandleResult(asking, names, { status: 'input_required', keys: ['go_on'] });
    expect(text(still)).toBe(
      'Still waiting for the user\'s answer to "go_on" (Go on?). Next: task_respond with the taskId and their answers.',
    );
    expect(TaskHandleSchema.parse(still.structuredContent)).toMatchObject({ next: 'task_respond', nextArguments: { taskId: 'task_X' } });
  });
});
