/** The 2025-11-25 wire shapes of a task, from one snapshot (the MCP SDK's `Task`). */
import type { Task as LegacyTask } from '@modelcontextprotocol/server';
import type { TaskSnapshot } from '../../tasks';

/** 2025-11-25: the Task object, nested under `task` in CreateTaskResult, flat elsewhere. */
export function toLegacyTask(task: TaskSnapshot, pollIntervalMs: number): LegacyTask {
  return {
    taskId: task.taskId,
    status: legacyStatus(task),
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: pollIntervalMs,
  };
}

/** 2025-11-25 reports a tool result with `isError: true` as `failed` (tasks/result still returns it). */
export function legacyStatus(task: TaskSnapshot): LegacyTask['status'] {
  const s = task.state;
  return s.status === 'completed' && s.result.isError ? 'failed' : s.status;
}
