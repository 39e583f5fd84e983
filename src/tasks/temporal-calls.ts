import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { grpcCodeOf, metrics } from './metrics';

/** A call to Temporal bounded in time, so an unreachable server gives an error, not a hang. */
export type Bounded = <R>(fn: () => Promise<R>) => Promise<R>;

/** What every part of the store calls Temporal through. */
export class TemporalCalls {
  constructor(
    readonly client: Client,
    private readonly timeoutMs: number,
  ) {}

  readonly bounded: Bounded = async (fn) => {
    const startedAt = performance.now();
    try {
      const result = await this.client.withDeadline(Date.now() + this.timeoutMs, fn);
      metrics.temporalCall((performance.now() - startedAt) / 1000);
      return result;
    } catch (err) {
      metrics.temporalCall((performance.now() - startedAt) / 1000, grpcCodeOf(err));
      throw err;
    }
  };

  /** Sends to a running workflow; false when it closed in the meantime (Temporal answers NotFound). */
  async toRunning(taskId: string, send: (h: WorkflowHandle) => Promise<void>): Promise<boolean> {
    try {
      await this.bounded(() => send(this.client.workflow.getHandle(taskId)));
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return false;
    }
  }
}
