/** tasks/get, tasks/update and tasks/cancel of the 2026-07-28 revision. */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { isTaskId, isTerminal, logger, taskLog, type TaskSnapshot } from '../../tasks';
import type { McpContext } from '../context';
import {
  InvalidInputResponseError,
  TaskNotFoundError,
  TaskStoreUnavailableError,
  tasksCapabilityRequired,
  toProtocolError,
} from '../core/errors';
import { declaresTasks, principalOf } from '../core/negotiation';
import { TaskIdParamsSchema } from '../core/task-params';
import { toGetTaskResult } from './wire';

export function registerTasksMethods(server: McpServer, mcp: McpContext): void {
  const low = server.server;
  // a task is visible only to the principal that created it (principalOf: undefined without auth)
  low.setRequestHandler('tasks/get', { params: TaskIdParamsSchema }, (params, ctx) =>
    guarded(params, ctx, async (taskId) => {
      const task = await mcp.reader.read(taskId, principalOf(ctx));
      if (!task) throw new TaskNotFoundError();
      return toGetTaskResult(task, mcp.config.pollIntervalMs);
    }),
  );
  low.setRequestHandler('tasks/update', { params: TaskIdParamsSchema }, (params, ctx) =>
    guarded(params, ctx, async (taskId) => {
      // lifted out of params by the SDK; entries it dropped as malformed are kept as null, so an
      // outstanding key answered badly is refused while unknown keys stay ignored
      const dropped = Object.fromEntries((ctx.mcpReq.droppedInputResponseKeys ?? []).map((k) => [k, null]));
      const responses = { ...dropped, ...ctx.mcpReq.inputResponses };
      // missing, or not an object (the SDK reads a string, array or null as no answers): say so, do nothing
      if (Object.keys(responses).length === 0)
        throw new InvalidInputResponseError('Invalid params: inputResponses must be an object that maps each answered key to its answer');
      const task = await mcp.store.sendInput(taskId, principalOf(ctx), responses);
      if (!task) throw new TaskNotFoundError();
      taskLog(task).info({ event: 'task.input', keys: Object.keys(responses) }, 'input responses received');
      return { resultType: 'complete' as const };
    }),
  );
  low.setRequestHandler('tasks/cancel', { params: TaskIdParamsSchema }, (params, ctx) =>
    guarded(params, ctx, async (taskId) => {
      const task = await mcp.store.cancel(taskId, principalOf(ctx));
      if (!task) throw new TaskNotFoundError();
      taskLog(task).info({ event: 'task.cancel', status: task.state.status }, 'cancellation requested');
      return cancelAnswer(task);
    }),
  );
}

async function guarded<R>(params: { taskId: unknown }, ctx: ServerContext, fn: (taskId: string) => Promise<R>): Promise<R> {
  if (!declaresTasks(ctx)) throw tasksCapabilityRequired();
  if (!isTaskId(params.taskId)) throw new TaskNotFoundError();
  try {
    return await fn(params.taskId);
  } catch (err) {
    const protocolError = toProtocolError(err);
    if (protocolError instanceof TaskStoreUnavailableError)
      logger.error({ event: 'tasks.failed', taskId: params.taskId, err: (err as Error).message }, 'task store error');
    throw protocolError;
  }
}

/** The `_meta` key under which the tasks/cancel ack says what the cancel did. */
export const CANCEL_OUTCOME_META_KEY = 'mcp-temporal-tasks/cancel';

/**
 * The empty ack (the suite wants nothing else on it), with `_meta` saying what the cancel did:
 * cancelling, or the end the task reached first, which then stands (a tool that finished before
 * the cancel landed reads completed, its effects kept).
 */
export function cancelAnswer(task: TaskSnapshot) {
  const status = task.state.status;
  const statusMessage =
    isTerminal(task) && !task.cancelRequested
      ? `The task had already ${status === 'completed' ? 'completed' : `ended ${status}`}: nothing was cancelled`
      : task.statusMessage;
  return { resultType: 'complete' as const, _meta: { [CANCEL_OUTCOME_META_KEY]: { status, ...(statusMessage ? { statusMessage } : {}) } } };
}
