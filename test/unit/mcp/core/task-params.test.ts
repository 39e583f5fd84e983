/** The params of the methods that name one task: any taskId passes the schema (it is checked by hand, after the capability). */
import { TaskIdParamsSchema } from '../../../../src/mcp/core/task-params';

test('any taskId passes; other params are kept', () => {
  expect(TaskIdParamsSchema.parse({ taskId: 'task_x', _meta: { a: 1 }, extra: true })).toEqual({
    taskId: 'task_x',
    _meta: { a: 1 },
    extra: true,
  });
  expect(TaskIdParamsSchema.parse({ taskId: 42 })).toEqual({ taskId: 42 });
});

test.each([null, 'task_x', 42, undefined])('params that are not an object (%p) are refused', (params) => {
  expect(TaskIdParamsSchema.safeParse(params).success).toBe(false);
});
