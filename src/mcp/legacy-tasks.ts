/**
 * The 2025-11-25 experimental Tasks generation, for today's clients, on the same workflows:
 * a `task` param on tools/call opts in; tasks/get answers the status only; tasks/result waits
 * for the outcome; tasks/list lists the caller's own tasks; tasks/cancel answers the Task.
 * Input requests are not bridged on this generation (its side channel needs a session).
 */
import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { isTerminal } from '../tasks/detailed-task';
import { isTaskId } from '../tasks/task-id';
import type { TaskSnapshot } from '../tasks/task-snapshot';
import type { TemporalTaskStore } from '../tasks/temporal-task-store';
import { asProtocolError, TaskNotFoundError } from './errors';
import { principalOf } from './negotiation';

export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const RESULT_POLL_MS = 250;

export interface LegacyTasksDeps {
  store: TemporalTaskStore;
  pollIntervalMs: number;
}

/** The 2025 Task object: nested under `task` in CreateTaskResult, flat elsewhere. */
export function legacyTask(task: TaskSnapshot, pollIntervalMs: number) {
  return {
    taskId: task.taskId,
    status: task.state.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: pollIntervalMs,
  };
}

export function registerLegacyTasksMethods(server: McpServer, deps: LegacyTasksDeps): void {
  const low = server.server;
  const read = async (taskId: unknown, ctx: ServerContext): Promise<TaskSnapshot> => {
    const task = isTaskId(taskId) ? await deps.store.read(taskId, principalOf(ctx)).catch(rethrow) : undefined;
    if (!task) throw new TaskNotFoundError();
    return task;
  };
  const byId = { params: z.looseObject({ taskId: z.unknown() }) };
  low.setRequestHandler('tasks/get', byId, async (params, ctx) => legacyTask(await read(params.taskId, ctx), deps.pollIntervalMs));
  low.setRequestHandler('tasks/cancel', byId, async (params, ctx) => {
    if (!isTaskId(params.taskId)) throw new TaskNotFoundError();
    const task = await deps.store.cancel(params.taskId, principalOf(ctx)).catch(rethrow);
    if (!task) throw new TaskNotFoundError();
    const after = isTerminal(task) ? task : await read(task.taskId, ctx);
    return legacyTask(after, deps.pollIntervalMs);
  });
  low.setRequestHandler('tasks/result', byId, async (params, ctx) => {
    let task = await read(params.taskId, ctx);
    while (!isTerminal(task) && !ctx.mcpReq.signal.aborted) {
      await new Promise((r) => setTimeout(r, RESULT_POLL_MS));
      task = await read(task.taskId, ctx);
    }
    return outcome(task);
  });
  low.setRequestHandler('tasks/list', { params: z.looseObject({}) }, async (_params, ctx) => {
    const tasks = await deps.store.listOwned(principalOf(ctx)).catch(rethrow);
    return { tasks: tasks.map((t) => legacyTask(t, deps.pollIntervalMs)) };
  });
}

function outcome(task: TaskSnapshot) {
  const meta = { [RELATED_TASK]: { taskId: task.taskId } };
  const s = task.state;
  if (s.status === 'completed') return { ...s.result, _meta: meta };
  if (s.status === 'failed') throw new ProtocolError(s.error.code, s.error.message, s.error.data);
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'The task was cancelled');
}

function rethrow(err: unknown): never {
  throw asProtocolError(err);
}
