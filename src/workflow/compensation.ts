import { CancellationScope } from '@temporalio/workflow';

/**
 * A tool's steps with their undos, so a cancel (or a failure) at any moment leaves nothing
 * half-done. The undo of a step is registered BEFORE its forward action runs: a cancel that
 * lands while the step is in flight still undoes it. So undos must be idempotent and a no-op
 * for a step that never took effect, and forward activities should wait for their cancellation
 * to settle (`cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED`) so an
 * undo never runs before its step has finished either way.
 */
export class Compensations {
  private readonly undos: Array<() => Promise<unknown>> = [];

  async step<T>(forward: () => Promise<T>, undo: () => Promise<unknown>): Promise<T> {
    this.undos.unshift(undo);
    return forward();
  }

  /** Runs the registered undos, newest first, shielded from the cancellation that called for them. */
  undoAll(): Promise<void> {
    return CancellationScope.nonCancellable(async () => {
      for (let undo = this.undos.shift(); undo; undo = this.undos.shift()) await undo();
    });
  }
}

/** Runs `body` with a fresh Compensations; if it throws (a cancel included), undoes its steps and rethrows. */
export async function withCompensation<T>(body: (steps: Compensations) => Promise<T>): Promise<T> {
  const steps = new Compensations();
  try {
    return await body(steps);
  } catch (err) {
    await steps.undoAll();
    throw err;
  }
}
