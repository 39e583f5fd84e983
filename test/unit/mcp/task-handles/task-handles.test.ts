/** The task tools of task handles (task_wait, task_respond, …): their names, and which tools answer a handle. */
import * as z from 'zod';
import { TaskHandles, TaskToolNameClashError } from '../../../../src/mcp/task-handles/task-handles';
import type { ToolDefinition } from '../../../../src/tool-definition';

const settings = { taskHandles: true, handleWaitMs: 20_000, taskToolsPrefix: 'task_', requiredToolsNeedTasks: false };
const mcp = (listing: boolean, s = settings) => ({ config: s, listing }) as never;
const tool = (name: string, taskMode: ToolDefinition['taskMode']): ToolDefinition => ({
  name,
  description: 'd',
  inputSchema: z.object({}),
  taskMode,
  workflowType: 'w',
});

test('task tools: list only with listing; a user tool of the same name is refused; none when handles are off', () => {
  expect(new TaskHandles(mcp(false), []).taskTools().map((t) => t.name)).toEqual(['task_wait', 'task_respond', 'task_cancel']);
  expect(new TaskHandles(mcp(true), []).taskTools().map((t) => t.name)).toContain('task_list');
  expect(() => new TaskHandles(mcp(false), ['task_wait'])).toThrow(TaskToolNameClashError);
  expect(() => new TaskHandles(mcp(false), ['task_wait'])).toThrow(/--task-tools-prefix/);
  expect(new TaskHandles(mcp(false, { ...settings, taskHandles: false }), ['task_wait']).taskTools()).toEqual([]);
});

test('which tools answer a handle', () => {
  const tools = new TaskHandles(mcp(false), []);
  expect(tools.servesHandle(tool('a', 'optional'))).toBe(true);
  expect(tools.servesHandle(tool('b', 'required'))).toBe(true);
  expect(tools.servesHandle(tool('c', 'never'))).toBe(false);
  const strict = new TaskHandles(mcp(false, { ...settings, requiredToolsNeedTasks: true }), []);
  expect(strict.servesHandle(tool('b', 'required'))).toBe(false);
  expect(strict.servesHandle(tool('a', 'optional'))).toBe(true);
});
