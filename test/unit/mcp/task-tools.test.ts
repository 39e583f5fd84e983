/** The task companion tools (task_wait, task_respond, …): their names, and which tools answer a handle. */
import * as z from 'zod';
import { TaskToolNameClashError, TaskTools } from '../../../src/mcp/task-handles/task-handles';
import type { ToolDefinition } from '../../../src/tool-definition';

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
