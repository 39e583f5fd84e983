/** 2025-11-25 tasks/cancel reads the task once before the cancel (the store reads it once after). */
import { McpServer } from '@modelcontextprotocol/server';
import { rev2025_11_25 } from '../../../../src/mcp/rev2025-11-25';
import { mintTaskId } from '../../../../src/tasks/store-parts';
import type { TaskSnapshot } from '../../../../src/tasks/task-snapshot';

type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;

function cancelHandler(store: object): Handler {
  const server = new McpServer({ name: 't', version: '0' }, { capabilities: rev2025_11_25.capabilities(false) });
  rev2025_11_25.registerMethods(server, { store, config: { pollIntervalMs: 1000 } } as never);
  return (server.server as unknown as { _getRequestHandler(m: string): Handler })._getRequestHandler('tasks/cancel');
}

const task = (over: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  taskId: mintTaskId(),
  tool: 't',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUpdatedAt: '2026-01-01T00:00:00.000Z',
  ttlMs: 60_000,
  startTtlMs: 60_000,
  state: { status: 'working' },
  ...over,
});

test('a running task: one read here, and the store cancels the task as read (it reads once more, after)', async () => {
  const running = task();
  const calls: string[] = [];
  const store = {
    read: async () => (calls.push('read'), running),
    cancel: async (_id: string, _principal: unknown, before?: TaskSnapshot) => {
      calls.push(before === running ? 'cancel(as read)' : 'cancel(reads again)');
      return { ...running, cancelRequested: true };
    },
  };
  const answer = await cancelHandler(store)({ method: 'tasks/cancel', params: { taskId: running.taskId } }, { mcpReq: {} });
  expect(calls).toEqual(['read', 'cancel(as read)']);
  expect(answer).toMatchObject({ taskId: running.taskId, status: 'cancelled' });
});

test('an ended task: one read, no cancel, -32602', async () => {
  const ended = task({ state: { status: 'completed', result: { content: [] } } });
  const calls: string[] = [];
  const store = { read: async () => (calls.push('read'), ended), cancel: async () => (calls.push('cancel'), ended) };
  const cancel = cancelHandler(store)({ method: 'tasks/cancel', params: { taskId: ended.taskId } }, { mcpReq: {} });
  await expect(cancel).rejects.toThrow(/already completed/);
  expect(calls).toEqual(['read']);
});
