/** The 2025-11-25 wire shapes of a task, from one snapshot (the MCP SDK's `Task`), and of a tool's task mode. */
import type { Task, ToolExecution } from '@modelcontextprotocol/server';
import type { TaskSnapshot } from '../../tasks';
import type { TaskMode } from '../../tool-definition';

/** The Task object, nested under `task` in CreateTaskResult, flat elsewhere. */
export function toTask(task: TaskSnapshot, pollIntervalMs: number): Task {
  return {
    taskId: task.taskId,
    status: statusOf(task),
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: pollIntervalMs,
  };
}

/** A tool result with `isError: true` reads `failed` (tasks/result still returns it). */
export function statusOf(task: TaskSnapshot): Task['status'] {
  const s = task.state;
  return s.status === 'completed' && s.result.isError ? 'failed' : s.status;
}

/** A tool's `execution.taskSupport`, from its task mode. */
export const TASK_SUPPORT = { never: 'forbidden', optional: 'optional', required: 'required' } as const satisfies Record<
  TaskMode,
  NonNullable<ToolExecution['taskSupport']>
>;
