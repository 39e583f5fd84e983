/**
 * task_wait's `waitMs`: a caller (the task card, or an agent that wants to look now) asks for a
 * shorter wait than the server's bound and gets the task as it is; the bound still caps it.
 */
import { call, createTask, RpcError } from '../support/mcp';
import { useStack } from '../support/stack';

// a server bound far past the test's time-out: only the caller's waitMs can end these waits
const stack = useStack({ config: { handleWaitMs: 120_000 } });
/** A client without Tasks: task_wait is its way to follow. */
const callTool = (name: string, args: Record<string, unknown>) =>
  call(stack.url, 'tools/call', { name, arguments: args }, { capabilities: {} });

test('a wait of waitMs answers the running task as it is, long before the server bound', async () => {
  const taskId = await createTask(stack.url, 'provision_environment', { name: 'bounded', steps: 2, stepMs: 30_000 });
  const now = await callTool('task_wait', { taskId, waitMs: 0 });
  expect(now.structuredContent).toMatchObject({ taskId, status: 'working' });
  const soon = await callTool('task_wait', { taskId, waitMs: 500 });
  expect(soon.structuredContent).toMatchObject({ taskId, status: 'working' });
  await callTool('task_cancel', { taskId });
});

test.each([-1, 1.5, 'soon', 3_600_001])('waitMs %p is refused as invalid arguments, naming it', async (waitMs) => {
  const err = await callTool('task_wait', { taskId: 'task_x', waitMs }).catch((e) => e);
  expect(err).toBeInstanceOf(RpcError);
  expect(err.message).toMatch(/waitMs/);
});
