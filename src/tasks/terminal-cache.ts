import type { TaskSnapshot } from './task-snapshot';

/**
 * Finished tasks never change, so their snapshots are kept (bounded, least recently used
 * first out) and a polled tasks/get of a finished task needs no Temporal call. Safe across
 * replicas for the same reason. Large results are not kept.
 */
export class TerminalTaskCache {
  private readonly entries = new Map<string, TaskSnapshot>();

  constructor(private readonly maxEntries = 10_000, private readonly maxResultBytes = 64 * 1024) {}

  get(taskId: string): TaskSnapshot | undefined {
    const hit = this.entries.get(taskId);
    if (!hit) return undefined;
    this.entries.delete(taskId); // refresh its place in the LRU order
    this.entries.set(taskId, hit);
    return hit;
  }

  put(task: TaskSnapshot): void {
    const s = task.state;
    if (s.status === 'completed' && JSON.stringify(s.result).length > this.maxResultBytes) return;
    this.entries.set(task.taskId, task);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(taskId: string): void {
    this.entries.delete(taskId);
  }
}
