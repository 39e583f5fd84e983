/** Task handles: their settings, the companion tools' names, and the handle text (no Temporal needed). */
import * as z from 'zod';
import { ConfigError, parseServerConfig } from '../../src/mcp/config';
import { handleResult, outcomeResult, taskToolNames } from '../../src/mcp/task-handle-text';
import { TaskToolNameClashError, TaskTools } from '../../src/mcp/task-tools';
import type { TaskSnapshot } from '../../src/tasks/task-snapshot';
import type { ToolDefinition } from '../../src/tool-definition';

test('settings: defaults, environment, flags', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ taskHandles: true, handleWaitMs: 20_000, taskToolsPrefix: 'task_', requiredToolsNeedTasks: false });
  const env = { MCP_TASK_HANDLES: 'false', MCP_HANDLE_WAIT_MS: '2000', MCP_TASK_TOOLS_PREFIX: 'temporal_', MCP_REQUIRED_TOOLS_NEED_TASKS: '1' };
  expect(parseServerConfig({}, env)).toMatchObject({ taskHandles: false, handleWaitMs: 2000, taskToolsPrefix: 'temporal_', requiredToolsNeedTasks: true });
  expect(parseServerConfig({ handleWaitMs: '500', taskHandles: true }, env)).toMatchObject({ handleWaitMs: 500, taskHandles: true });
});

test.each([
  [{ handleWaitMs: '0' }, /handleWaitMs \(--handle-wait-ms or MCP_HANDLE_WAIT_MS\)/],
  [{ handleWaitMs: '700000' }, /handleWaitMs/],
  [{ taskToolsPrefix: 'tasks.' }, /taskToolsPrefix \(--task-tools-prefix or MCP_TASK_TOOLS_PREFIX\)/],
])('settings: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

const settings = { taskHandles: true, handleWaitMs: 20_000, taskToolsPrefix: 'task_', requiredToolsNeedTasks: false };
const deps = (listing: boolean, s = settings) => ({ store: {} as never, watcher: {} as never, listing, settings: s, limits: {} as never });
const tool = (name: string, taskMode: ToolDefinition['taskMode']): ToolDefinition => ({ name, description: 'd', inputSchema: z.object({}), taskMode, workflowType: 'w' });

test('companion tools: list only with listing; a user tool of the same name is refused; none when handles are off', () => {
  expect(new TaskTools(deps(false), []).companionTools().map((t) => t.name)).toEqual(['task_wait', 'task_respond', 'task_cancel']);
  expect(new TaskTools(deps(true), []).companionTools().map((t) => t.name)).toContain('task_list');
  expect(() => new TaskTools(deps(false), ['task_wait'])).toThrow(TaskToolNameClashError);
  expect(() => new TaskTools(deps(false), ['task_wait'])).toThrow(/--task-tools-prefix/);
  expect(new TaskTools(deps(false, { ...settings, taskHandles: false }), ['task_wait']).companionTools()).toEqual([]);
});

test('which tools answer a handle', () => {
  const tools = new TaskTools(deps(false), []);
  expect(tools.servesHandle(tool('a', 'optional'))).toBe(true);
  expect(tools.servesHandle(tool('b', 'required'))).toBe(true);
  expect(tools.servesHandle(tool('c', 'never'))).toBe(false);
  const strict = new TaskTools(deps(false, { ...settings, requiredToolsNeedTasks: true }), []);
  expect(strict.servesHandle(tool('b', 'required'))).toBe(false);
  expect(strict.servesHandle(tool('a', 'optional'))).toBe(true);
});

const base: Omit<TaskSnapshot, 'state'> = { taskId: 'task_X', tool: 'approve_expense', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttlMs: 1000 };

test('the handle: text and structuredContent say the same, questions come with their schema', () => {
  const requestedSchema = { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] };
  const task: TaskSnapshot = {
    ...base,
    statusMessage: 'waiting for approval',
    state: { status: 'input_required', inputRequests: { approval: { method: 'elicitation/create', params: { mode: 'form', message: 'Approve?', requestedSchema } } as never } },
  };
  const result = handleResult(task, taskToolNames('task_'), 20_000);
  const text = (result.content[0] as { text: string }).text;
  expect(text).toContain('taskId: task_X');
  expect(text).toContain('status: input_required (waiting for approval)');
  expect(text).toContain('"approval": Approve?');
  expect(text).toContain(JSON.stringify(requestedSchema));
  expect(text).toContain('task_respond');
  expect(result.structuredContent).toMatchObject({ taskId: 'task_X', status: 'input_required', statusMessage: 'waiting for approval', next: 'task_respond' });
  expect(result.isError).toBeUndefined();
});

test('ended tasks: the tool\'s own result (isError kept), a failure as isError with the reason', () => {
  const own = { content: [{ type: 'text' as const, text: 'rejected' }], isError: true };
  expect(outcomeResult({ ...base, state: { status: 'completed', result: own } })).toBe(own);
  const failed = outcomeResult({ ...base, state: { status: 'failed', error: { code: -32603, message: 'boom' } } });
  expect(failed.isError).toBe(true);
  expect((failed.content[0] as { text: string }).text).toContain('boom');
  expect(outcomeResult({ ...base, state: { status: 'cancelled' } }).structuredContent).toMatchObject({ status: 'cancelled' });
});
