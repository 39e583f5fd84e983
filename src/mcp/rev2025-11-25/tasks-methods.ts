/**
 * The 2025-11-25 experimental Tasks methods, for today's clients, on the same workflows:
 * tasks/get answers the status only; tasks/result follows the task (the task watcher's history
 * long-poll) until its outcome, and meanwhile sends its input requests and a
 * `notifications/tasks/status` per change on its own SSE stream; tasks/list lists the caller's
 * own tasks (only where callers are authenticated); tasks/cancel answers the Task. Answers to
 * the input requests come back as POSTed responses (front.ts).
 */
import { type McpServer, ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { isTaskId, isTerminal, taskLog, type TaskSnapshot, type TaskWatcher, withCancelFinal } from '../../tasks';
import type { McpContext } from '../context';
import { TaskNotFoundError, toProtocolError } from '../core/errors';
import { principalOf } from '../core/negotiation';
import { TaskIdParamsSchema } from '../core/task-params';
import type { TaskListeners } from '../task-listeners';
import { inputRequestMessage } from './front';
import { statusOf, toTask } from './wire';
import { traceNotification } from '../tracing';

/** `reasks`: this replica's tasks/result streams by task, to ask again a question whose POSTed answer did not fit. */
export function registerTasksMethods(server: McpServer, mcp: McpContext, reasks: TaskListeners): void {
  const low = server.server;
  const { store, config } = mcp;
  const pollIntervalMs = config.pollIntervalMs;
  const readRaw = async (taskId: unknown, ctx: ServerContext, from: McpContext['reader'] = store): Promise<TaskSnapshot> => {
    const task = isTaskId(taskId) ? await from.read(taskId, principalOf(ctx)).catch(rethrow) : undefined;
    if (!task) throw new TaskNotFoundError();
    return task;
  };
  const read = async (taskId: unknown, ctx: ServerContext, from?: McpContext['reader']) =>
    withCancelFinal(await readRaw(taskId, ctx, from));
  const byId = { params: TaskIdParamsSchema };
  low.setRequestHandler('tasks/get', byId, async (params, ctx) => toTask(await read(params.taskId, ctx, mcp.reader), pollIntervalMs));
  low.setRequestHandler('tasks/cancel', byId, async (params, ctx) => {
    const raw = await readRaw(params.taskId, ctx);
    const before = withCancelFinal(raw);
    if (isTerminal(before))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task: it is already ${statusOf(before)}`);
    // the task as just read: the store cancels and reads it once more, after
    const after = await store.cancel(before.taskId, principalOf(ctx), raw).catch(rethrow);
    if (!after) throw new TaskNotFoundError();
    taskLog(after).info({ event: 'task.cancel', revision: '2025-11-25' }, 'cancellation requested');
    // cancelled from now on (the workflow honours it), unless it ended on its own first
    return toTask(withCancelFinal(after), pollIntervalMs);
  });
  low.setRequestHandler('tasks/result', byId, async (params, ctx) => {
    const task = await read(params.taskId, ctx);
    if (isTerminal(task)) return outcome(task);
    // this request's own transport: the pooled server may serve another request once this one ends
    const transport = low.transport;
    const sent = new Set<string>();
    let shown = toTask(task, pollIntervalMs);
    let latest = task;
    // on this request's SSE stream: each status change, and each pending input request once
    const onChange = async (task: TaskSnapshot) => {
      latest = task;
      const now = toTask(task, pollIntervalMs);
      if (now.status !== shown.status || now.statusMessage !== shown.statusMessage) {
        traceNotification('notifications/tasks/status', task);
        await ctx.mcpReq.notify({ method: 'notifications/tasks/status', params: now });
      }
      shown = now;
      if (task.state.status !== 'input_required') return;
      for (const [key, request] of Object.entries(task.state.inputRequests)) {
        if (sent.has(key) || ctx.mcpReq.signal.aborted) continue;
        sent.add(key);
        await transport?.send(inputRequestMessage(task.taskId, key, request), { relatedRequestId: ctx.mcpReq.id });
        taskLog(task).info({ event: 'task.input.sent', key }, 'input request sent on the tasks/result stream');
      }
    };
    const off = reasks.on(task.taskId, (key) => {
      sent.delete(key);
      void onChange(latest).catch(() => undefined);
    });
    try {
      const followed = await mcp.limits.holding(
        principalOf(ctx),
        () => untilTerminal(mcp.watcher, task, principalOf(ctx), ctx.mcpReq.signal, onChange),
        'result_stream',
      );
      return outcome(followed);
    } finally {
      off();
    }
  });
  low.setRequestHandler('tasks/list', { params: z.looseObject({ cursor: z.string().optional() }) }, async (params, ctx) => {
    const principal = principalOf(ctx);
    // without an authorization context there is no "own" task to list
    if (!mcp.listing || principal === undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    const page = await store.listOwned(principal, params.cursor).catch(rethrow);
    return {
      tasks: page.tasks.map((t) => toTask(withCancelFinal(t), pollIntervalMs)),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });
}

/**
 * Follows the task (Temporal's history long-poll, shared with any other stream watching it)
 * until it ends; `onChange` sees each state after `task` in order, the pending one first.
 */
function untilTerminal(
  watcher: TaskWatcher,
  task: TaskSnapshot,
  principal: string | undefined,
  signal: AbortSignal,
  onChange: (task: TaskSnapshot) => Promise<void>,
): Promise<TaskSnapshot> {
  return new Promise((resolve, reject) => {
    let chain: Promise<void> = Promise.resolve();
    let last = task;
    let stop = () => {};
    const finish = (err?: unknown) => {
      stop();
      signal.removeEventListener('abort', onAbort);
      chain.then(() => (err ? reject(err) : resolve(last)), reject);
    };
    const onTask = (found: TaskSnapshot | undefined) => {
      if (!found) return finish(new TaskNotFoundError());
      const next = withCancelFinal(found);
      last = next;
      chain = chain.then(() => onChange(next)).catch(() => undefined); // a client gone mid-send: the end comes by the signal
      if (isTerminal(next)) finish();
    };
    const onAbort = () => finish(new ProtocolError(ProtocolErrorCode.InternalError, 'The request was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    watcher.watch(task.taskId, principal, onTask).then((watch) => {
      stop = watch.stop;
      if (signal.aborted) return stop();
      if (!watch.initial) return finish(new TaskNotFoundError());
      if (last === task) onTask(watch.initial); // no change came first: start from what is pending now
    }, finish);
  });
}

function outcome(task: TaskSnapshot) {
  const meta = { [RELATED_TASK_META_KEY]: { taskId: task.taskId } };
  const s = task.state;
  if (s.status === 'completed') return { ...s.result, _meta: meta };
  if (s.status === 'failed') throw new ProtocolError(s.error.code, s.error.message, s.error.data);
  // a cancel whose undos did not all succeed says which steps may still be in effect
  if (s.status === 'cancelled' && s.undoFailures)
    throw new ProtocolError(ProtocolErrorCode.InternalError, `The task was ${task.statusMessage}`, { undoFailures: s.undoFailures });
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'The task was cancelled');
}

function rethrow(err: unknown): never {
  throw toProtocolError(err);
}
