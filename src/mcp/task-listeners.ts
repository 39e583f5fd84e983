/** Callbacks by taskId on this replica (e.g. the calls waiting on a task's input requests); `emit` calls each with a key. */
export class TaskListeners {
  private readonly listeners = new Map<string, Set<(key: string) => void>>();

  /** Returns what removes the listener. */
  on(taskId: string, listener: (key: string) => void): () => void {
    const set = this.listeners.get(taskId) ?? this.listeners.set(taskId, new Set()).get(taskId)!;
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(taskId);
    };
  }

  emit(taskId: string, key: string): void {
    for (const listener of this.listeners.get(taskId) ?? []) listener(key);
  }
}
