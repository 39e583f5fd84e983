import { performance } from 'node:perf_hooks';

/**
 * When this replica last answered, cancelled or terminated each task (performance.now()). The
 * store records here; a reader that keeps a task's state (PolledTasks) looks here, and does not
 * serve a read that started before the task's last write. The store knows no reader: calls go
 * one way. A write is a history event, so a watch reads the task again within the `keepMs` its
 * reader asked for: older writes are dropped, and without such a reader nothing is kept.
 */
export class TaskWrites {
  /** In time order: a task written again moves to the end. */
  private readonly at = new Map<string, number>();
  private keepMs = 0;

  /** Keeps each write at least `ms` (the longest any reader asked for). */
  keepFor(ms: number): void {
    this.keepMs = Math.max(this.keepMs, ms);
  }

  record(taskId: string): void {
    if (this.keepMs === 0) return;
    const now = performance.now();
    this.at.delete(taskId);
    this.at.set(taskId, now);
    for (const [id, at] of this.at) {
      if (at >= now - this.keepMs) break;
      this.at.delete(id);
    }
  }

  /** When this replica last wrote to the task, or undefined. */
  lastAt(taskId: string): number | undefined {
    return this.at.get(taskId);
  }
}
