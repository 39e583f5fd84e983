/**
 * The 2026-07-28 wire shapes of a task, from one snapshot (ext-tasks' own types). The
 * 2025-11-25 ones are in ../rev2025-11-25/wire.ts; the text a task handle shows to callers
 * without Tasks is ../task-handles/handle-text.ts.
 */
import type { CreateTaskResultV2, DetailedTaskV2, GetTaskResultV2 } from '@modelcontextprotocol/ext-tasks/core/v2' with {
  'resolution-mode': 'import',
};
import { isTerminal, type TaskSnapshot } from '../../tasks';

/** 2026: the flat DetailedTask (tasks/get, notifications). */
export function toDetailedTask(task: TaskSnapshot, pollIntervalMs: number): DetailedTaskV2 {
  const base = {
    taskId: task.taskId,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    ...(isTerminal(task) ? {} : { pollIntervalMs }),
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
  };
  const s = task.state;
  switch (s.status) {
    case 'working':
    case 'cancelled':
      return { ...base, status: s.status };
    case 'input_required':
      return { ...base, status: s.status, inputRequests: s.inputRequests };
    case 'completed':
      return { ...base, status: s.status, result: { ...s.result, resultType: 'complete' } };
    case 'failed':
      return { ...base, status: s.status, error: s.error };
  }
}

/** 2026: the answer to tasks/get. */
export function toGetTaskResult(task: TaskSnapshot, pollIntervalMs: number): GetTaskResultV2 {
  return { ...toDetailedTask(task, pollIntervalMs), resultType: 'complete' };
}

/** 2026: the answer to a task-augmented tools/call, once Temporal acknowledged the start. */
export function toCreateTaskResult(task: TaskSnapshot, pollIntervalMs: number): CreateTaskResultV2 {
  return {
    resultType: 'task',
    taskId: task.taskId,
    status: 'working',
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs,
  };
}
