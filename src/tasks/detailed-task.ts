import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2' with { 'resolution-mode': 'import' };
import type { TaskSnapshot } from './task-snapshot';

export type DetailedTask = DetailedTaskV2;

/** The one mapping from a task snapshot to the wire's flat DetailedTask (tasks/get result). */
export function toDetailedTask(task: TaskSnapshot, pollIntervalMs: number): DetailedTask {
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
      return { ...base, status: s.status } as DetailedTask;
    case 'input_required':
      return { ...base, status: s.status, inputRequests: s.inputRequests } as DetailedTask;
    case 'completed':
      return { ...base, status: s.status, result: { ...s.result, resultType: 'complete' } } as DetailedTask;
    case 'failed':
      return { ...base, status: s.status, error: s.error } as DetailedTask;
  }
}

export function isTerminal(task: TaskSnapshot): boolean {
  return task.state.status === 'completed' || task.state.status === 'failed' || task.state.status === 'cancelled';
}
