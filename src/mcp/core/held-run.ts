/**
 * A held synchronous call (a tool run and awaited in the call): with a progressToken, it is
 * told the run's progress through the task watcher, like a wait on a handle, and a caller that
 * drops it leaves the run going (the notifications named its taskId: tasks/get or task_wait).
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult } from '../../contract';
import type { StartTaskInput, TaskWatch } from '../../tasks';
import type { McpContext } from '../context';
import { ProgressNotifier } from '../task-handles/progress-notifier';

export async function runHeld(mcp: McpContext, input: StartTaskInput, ctx: ServerContext): Promise<CallToolResult> {
  const progress = ProgressNotifier.forRequest(ctx);
  if (!progress) return mcp.store.run(input, ctx.mcpReq.signal);
  let watch: Promise<TaskWatch> | undefined;
  let changed = false;
  progress.start();
  try {
    return await mcp.store.run(input, ctx.mcpReq.signal, {
      started: (taskId) => {
        watch = mcp.watcher.watch(taskId, input.owner, (task) => {
          changed = true;
          if (task) progress.onState(task);
        });
        // progress is a courtesy: the run's own wait reports failures
        watch.then(
          (w) => !changed && w.initial && progress.onState(w.initial),
          () => undefined,
        );
      },
    });
  } finally {
    progress.stop();
    void watch?.then(
      (w) => w.stop(),
      () => undefined,
    );
  }
}
