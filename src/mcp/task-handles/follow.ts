import { isTerminal, type TaskSnapshot, type TaskWatcher } from '../../tasks';

export interface FollowOptions {
  /** At most this long. */
  boundMs: number;
  /** The caller went away. */
  signal: AbortSignal;
  /** Stop early on this state (besides a terminal one). */
  stopAt?: (task: TaskSnapshot) => boolean;
  /** Ends the wait early with the latest state (e.g. the client refused an input request). */
  interrupt?: AbortSignal;
  /** Each state seen, the current one first (e.g. to send its input requests on the call's stream). */
  onState?: (task: TaskSnapshot) => void;
}

export type FollowOutcome =
  { kind: 'state'; task: TaskSnapshot; timedOut: boolean } | { kind: 'gone' } | { kind: 'aborted'; task: TaskSnapshot | undefined };

/**
 * Follows a task through the watcher (Temporal's history long-poll, shared with every other
 * stream watching it) for a bounded time: the state it ended in, the one `stopAt` picked, or
 * the latest when the bound passed. `gone`: unknown, expired or not this caller's.
 */
export function followTask(
  watcher: TaskWatcher,
  taskId: string,
  principal: string | undefined,
  opts: FollowOptions,
): Promise<FollowOutcome> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const timerFired = () => Date.now() - startedAt >= opts.boundMs;
    let last: TaskSnapshot | undefined;
    let stop = () => {};
    let done = false;
    const finish = (outcome: FollowOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      opts.interrupt?.removeEventListener('abort', onInterrupt);
      stop();
      resolve(outcome);
    };
    const onTask = (task: TaskSnapshot | undefined) => {
      if (!task) return finish({ kind: 'gone' });
      last = task;
      opts.onState?.(task);
      if (isTerminal(task) || opts.stopAt?.(task)) finish({ kind: 'state', task, timedOut: false });
    };
    const onAbort = () => finish({ kind: 'aborted', task: last });
    const onInterrupt = () => (last ? finish({ kind: 'state', task: last, timedOut: false }) : undefined);
    opts.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    const timer = setTimeout(() => (last ? finish({ kind: 'state', task: last, timedOut: true }) : undefined), opts.boundMs);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    watcher.watch(taskId, principal, onTask).then(
      (watch) => {
        stop = watch.stop;
        if (done) return stop();
        if (!watch.initial) return finish({ kind: 'gone' });
        if (!last) onTask(watch.initial); // no change came first: start from the state now
        // the bound may have passed while the first read was under way
        if (!done && timerFired()) finish({ kind: 'state', task: last!, timedOut: true });
      },
      (err) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
    if (opts.signal.aborted) onAbort();
  });
}
