/**
 * The end-to-end batch of bench:peer followed the two other ways a fair client follows a task:
 * ours by subscription (`subscriptions/listen`, one stream per task opened right after its
 * create), and raw Temporal polled with describe() at the interval every stack is polled at.
 * The batch is batchE2e's: every task created at the same concurrency, its completion timed when
 * the client sees it.
 */
import { subscribe } from '../../test/support/mcp-client';
import { type CallContext, createOurs, handle, startRaw } from '../clients';
import { type Follow, timedBatch } from '../measurements/batch';
import { type E2eContext, pollUntil } from '../measurements/end-to-end';
import { now } from '../script';

/** Creates cfg.e2e.tasks tasks at its concurrency; each is followed until the client sees it completed. */
async function followedBatch(ctx: E2eContext, create: () => Promise<string>, follow: Follow) {
  const { ids: _ids, ...batch } = await timedBatch(ctx.cfg.e2e, ctx.live, create, follow);
  return batch;
}

/** Ours (its MCP endpoint at url), each task followed through its own subscriptions/listen stream until it says completed. */
export function subscribedBatchE2e(ctx: E2eContext, url: string) {
  return followedBatch(
    ctx,
    async () => (await createOurs(ctx, ctx.cfg.e2e.seconds)).taskId,
    async (taskId, _createdAt, deadline, reads) => {
      const stream = await subscribe(url, [taskId]);
      if (stream.error) throw new Error(`listen refused: ${JSON.stringify(stream.error)}`);
      try {
        for (;;) {
          const message = await stream.next(Math.max(1, deadline - now()));
          if (message === undefined) throw new Error(`task ${taskId}: its stream ended before it completed`);
          if (message.method !== 'notifications/tasks') continue;
          reads.count++;
          const { status } = message.params;
          if (status === 'completed') return now();
          if (status !== 'working') throw new Error(`task ${taskId} ended ${status}`);
        }
      } finally {
        stream.close();
      }
    },
  );
}

/** Raw starts of `workflowType`, each polled with describe() at pollMs, open loop, as ours and the peers are. */
export function rawPolledBatchE2e(ctx: E2eContext & CallContext, pollMs: number, workflowType = 'plainTimer') {
  const taskMs = ctx.cfg.e2e.seconds * 1000;
  return followedBatch(
    ctx,
    () => startRaw(ctx, ctx.cfg.e2e.seconds, workflowType),
    (id, createdAt, deadline, reads) =>
      pollUntil(
        () =>
          handle(ctx, id)
            .describe()
            .then((d) => d.status.name),
        ['COMPLETED', 'RUNNING'],
        {
          taskId: id,
          notBefore: createdAt + taskMs,
          pollMs,
          deadline,
          reads,
          openLoop: true,
        },
      ),
  );
}
