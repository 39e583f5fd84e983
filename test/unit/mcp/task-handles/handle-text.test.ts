/** The task handle's text and the ended task's result. */
import { handleResult, outcomeResult, taskToolNames } from '../../../../src/mcp/task-handles/handle-text';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

const base: Omit<TaskSnapshot, 'state'> = {
  taskId: 'task_X',
  tool: 'approve_expense',
  createdAt: '2026-01-01T00:00:00Z',
  lastUpdatedAt: '2026-01-01T00:00:00Z',
  ttlMs: 1000,
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
