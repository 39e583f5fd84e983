import type { TaskSnapshot } from '../task-snapshot';

/**
 * Finished tasks never change, so their snapshots are kept (least recently used first out) and
 * a polled tasks/get of a finished task needs no Temporal call. Safe across replicas for the
 * same reason. Bounded by count and by bytes (every kind of entry counts, failures too); an
 * entry larger than `maxEntryBytes` is not kept.
 */
export class TerminalTaskCache {
  private readonly entries = new Map<string, { task: TaskSnapshot; bytes: number }>();
  private totalBytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxEntryBytes = 64 * 1024,
  ) {}

  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(taskId: string): TaskSnapshot | undefined {
    const hit = this.entries.get(taskId);
    if (!hit) return undefined;
    this.entries.delete(taskId); // refresh its place in the LRU order
    this.entries.set(taskId, hit);
    return hit.task;
  }

  put(task: TaskSnapshot): void {
    this.delete(task.taskId);
    const bytes = Buffer.byteLength(JSON.stringify(task));
    if (bytes > this.maxEntryBytes) return;
    this.entries.set(task.taskId, { task, bytes });
    this.totalBytes += bytes;
    while (this.entries.size > this.maxEntries || this.totalBytes > this.maxBytes) this.delete(this.entries.keys().next().value as string);
  }

  delete(taskId: string): void {
    const hit = this.entries.get(taskId);
    if (!hit) return;
    this.entries.delete(taskId);
    this.totalBytes -= hit.bytes;
  }
}
