/**
 * The 2025-11-25 experimental Tasks generation, for today's clients, on the same workflows:
 * a `task` param on tools/call opts in; tasks/get answers the status only; tasks/result follows
 * the task (the task watcher's history long-poll) until its outcome, and meanwhile sends its
 * input requests and a `notifications/tasks/status` per change on its own SSE stream;
 * tasks/list lists the caller's own tasks (only where callers are authenticated);
 * tasks/cancel answers the Task.
 *
 * The client answers an input request by POSTing a JSON-RPC response, which may reach any
 * replica. So the request's id says what it answers (`mcp-task-input:<taskId>:<key>`; the
 * taskId is a bearer secret sent only to its own caller) and `legacyInputResponses` applies
 * such answers in front of the SDK's handler, exactly as 2026 tasks/update does.
 */
import {
  type AuthInfo,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type ServerContext,
  type ToolExecution,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { InputResponseError, isTaskId, isTerminal, logger, taskLog, type TaskSnapshot, type TaskWatcher, type TemporalTaskStore, withCancelFinal } from '../../tasks';
import { legacyStatus, toLegacyTask } from './wire';
import type { TaskMode } from '../../tool-definition';
import type { InputRequest } from '../../contract';
import { TaskNotFoundError, toProtocolError } from '../errors';
import { principalOf, principalOfAuth } from '../negotiation';
import { TaskIdParamsSchema } from '../task-params';
import type { RequestBody } from '../http/body';
import type { WatchLimits } from '../watch-limits';
import type { TaskReader } from '../polled-tasks';

const INPUT_ID_PREFIX = 'mcp-task-input:';
/**
 * The same, sent on a task tool's own call by task handles (task-tools.ts). A 2025 request does
 * not say whether its client declared elicitation, so a `cancel` answer to one of these (the
 * user dismissed it, or a client without forms settled it) is no answer: the task keeps
 * waiting and the question is shown in the handle instead.
 */
const HANDLE_INPUT_ID_PREFIX = 'mcp-task-ask:';

/** The 2025 `tasks` capability; `list` only where tasks/list is served. */
export function legacyTasksCapability(listing: boolean) {
  return { ...(listing ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } };
}

/** A tool's 2025 `execution.taskSupport`, from its task mode. */
export const TASK_SUPPORT = { never: 'forbidden', optional: 'optional', required: 'required' } as const satisfies Record<
  TaskMode,
  NonNullable<ToolExecution['taskSupport']>
>;

export interface LegacyTasksDeps {
  store: TemporalTaskStore;
  watcher: TaskWatcher;
  /** What tasks/get reads through: a polled task is answered from its watch (unless turned off). */
  reader: TaskReader;
  pollIntervalMs: number;
  /** tasks/list is served only with authentication and the McpOwner search attribute. */
  listing: boolean;
  /** A tasks/result stream holds one place while it follows its task. */
  limits: WatchLimits;
  /** Questions to ask again on this replica's streams (their answer did not fit). */
  reasks: InputReasks;
}

/**
 * The tasks/result streams of this replica, by task: when a POSTed answer does not fit its
 * request, the streams that asked forget they did and ask again, so the client sees the
 * question come back instead of waiting for ever. (The POST itself is answered with the reason.)
 */
export class InputReasks {
  private readonly waiting = new Map<string, Set<(key: string) => void>>();

  on(taskId: string, reask: (key: string) => void): () => void {
    const set = this.waiting.get(taskId) ?? this.waiting.set(taskId, new Set()).get(taskId)!;
    set.add(reask);
    return () => {
      set.delete(reask);
      if (set.size === 0) this.waiting.delete(taskId);
    };
  }

  reask(taskId: string, key: string): void {
    for (const reask of this.waiting.get(taskId) ?? []) reask(key);
  }
}

export function registerLegacyTasksMethods(server: McpServer, deps: LegacyTasksDeps): void {
  const low = server.server;
  const read = async (taskId: unknown, ctx: ServerContext, from: TaskReader = deps.store): Promise<TaskSnapshot> => {
    const task = isTaskId(taskId) ? await from.read(taskId, principalOf(ctx)).catch(rethrow) : undefined;
    if (!task) throw new TaskNotFoundError();
    return withCancelFinal(task);
  };
  const byId = { params: TaskIdParamsSchema };
  low.setRequestHandler('tasks/get', byId, async (params, ctx) => toLegacyTask(await read(params.taskId, ctx, deps.reader), deps.pollIntervalMs));
  low.setRequestHandler('tasks/cancel', byId, async (params, ctx) => {
    const before = await read(params.taskId, ctx);
    if (isTerminal(before)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task: it is already ${legacyStatus(before)}`);
    const after = await deps.store.cancel(before.taskId, principalOf(ctx)).catch(rethrow);
    if (!after) throw new TaskNotFoundError();
    taskLog(after).info({ event: 'task.cancel', generation: '2025-11-25' }, 'cancellation requested');
    // cancelled from now on (the workflow honours it), unless it ended on its own first
    return toLegacyTask(withCancelFinal(after), deps.pollIntervalMs);
  });
  low.setRequestHandler('tasks/result', byId, async (params, ctx) => {
    const task = await read(params.taskId, ctx);
    if (isTerminal(task)) return outcome(task);
    // this request's own transport: the pooled server may serve another request once this one ends
    const transport = low.transport;
    const sent = new Set<string>();
    let shown = toLegacyTask(task, deps.pollIntervalMs);
    let latest = task;
    // on this request's SSE stream: each status change, and each pending input request once
    const onChange = async (task: TaskSnapshot) => {
      latest = task;
      const now = toLegacyTask(task, deps.pollIntervalMs);
      if (now.status !== shown.status || now.statusMessage !== shown.statusMessage) await ctx.mcpReq.notify({ method: 'notifications/tasks/status', params: now });
      shown = now;
      if (task.state.status !== 'input_required') return;
      for (const [key, request] of Object.entries(task.state.inputRequests)) {
        if (sent.has(key) || ctx.mcpReq.signal.aborted) continue;
        sent.add(key);
        await transport?.send(inputRequestMessage(task.taskId, key, request), { relatedRequestId: ctx.mcpReq.id });
        taskLog(task).info({ event: 'task.input.sent', key }, 'input request sent on the tasks/result stream');
      }
    };
    const off = deps.reasks.on(task.taskId, (key) => {
      sent.delete(key);
      void onChange(latest).catch(() => undefined);
    });
    try {
      const followed = await deps.limits.holding(principalOf(ctx), () => untilTerminal(deps.watcher, task, principalOf(ctx), ctx.mcpReq.signal, onChange));
      return outcome(followed);
    } finally {
      off();
    }
  });
  low.setRequestHandler('tasks/list', { params: z.looseObject({ cursor: z.string().optional() }) }, async (params, ctx) => {
    const principal = principalOf(ctx);
    // without an authorization context there is no "own" task to list
    if (!deps.listing || principal === undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    const page = await deps.store.listOwned(principal, params.cursor).catch(rethrow);
    return { tasks: page.tasks.map((t) => toLegacyTask(withCancelFinal(t), deps.pollIntervalMs)), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
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

/** A 2025 input request whose id names its task and key (answers are routed by it, on any replica). */
export function inputRequestMessage(taskId: string, key: string, request: InputRequest, viaHandle = false) {
  const { _meta, ...rest } = request.params as { _meta?: object };
  const params = { ...rest, _meta: { ..._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  return { jsonrpc: '2.0' as const, id: `${viaHandle ? HANDLE_INPUT_ID_PREFIX : INPUT_ID_PREFIX}${taskId}:${key}`, method: request.method, params };
}

function outcome(task: TaskSnapshot) {
  const meta = { [RELATED_TASK_META_KEY]: { taskId: task.taskId } };
  const s = task.state;
  if (s.status === 'completed') return { ...s.result, _meta: meta };
  if (s.status === 'failed') throw new ProtocolError(s.error.code, s.error.message, s.error.data);
  // a cancel whose undos did not all succeed says which steps may still be in effect
  if (s.status === 'cancelled' && s.undoFailures) throw new ProtocolError(ProtocolErrorCode.InternalError, `The task was ${task.statusMessage}`, { undoFailures: s.undoFailures });
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'The task was cancelled');
}

function parseInputRequestId(id: unknown): { taskId: string; key: string; viaHandle: boolean } | undefined {
  if (typeof id !== 'string') return undefined;
  const prefix = [INPUT_ID_PREFIX, HANDLE_INPUT_ID_PREFIX].find((p) => id.startsWith(p));
  if (!prefix) return undefined;
  const rest = id.slice(prefix.length);
  const colon = rest.indexOf(':');
  const taskId = rest.slice(0, colon);
  return colon > 0 && isTaskId(taskId) ? { taskId, key: rest.slice(colon + 1), viaHandle: prefix === HANDLE_INPUT_ID_PREFIX } : undefined;
}

/**
 * In front of the SDK's handler (which answers any POSTed response with 202 and drops it):
 * a client's answer to an input request sent on a tasks/result stream goes to its task, as
 * tasks/update would send it. Resolves undefined for anything else (the SDK serves it).
 */
export function legacyInputResponses(store: TemporalTaskStore, onRefused?: (taskId: string, key: string) => void, reasks?: InputReasks) {
  return async (request: Request, authInfo: AuthInfo | undefined, body: RequestBody | undefined): Promise<Response | undefined> => {
    if (request.method !== 'POST' || request.headers.has('mcp-method') || !body) return undefined; // responses carry no method
    if (!body.text.includes(INPUT_ID_PREFIX) && !body.text.includes(HANDLE_INPUT_ID_PREFIX)) return undefined;
    const message = body.json; // undefined when not JSON: the SDK answers the parse error
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return undefined;
    const accepted = new Response(null, { status: 202 });
    const target = parseInputRequestId(message.id);
    if (!target) {
      logger.debug({ event: 'task.input.dropped', id: message.id }, 'a response to no input request of ours');
      return accepted;
    }
    const log = logger.child({ taskId: target.taskId, key: target.key });
    if (isJSONRPCErrorResponse(message)) {
      // no answer: the task keeps waiting (a later tasks/result or a 2026 tasks/update can answer)
      log.info({ event: 'task.input.refused', error: message.error }, 'the client answered an input request with an error');
      onRefused?.(target.taskId, target.key); // a call of this replica waiting on it need not wait out its bound
      return accepted;
    }
    if (target.viaHandle && (message.result as { action?: unknown }).action === 'cancel') {
      log.info({ event: 'task.input.dismissed' }, 'an input request sent with a task handle was dismissed: the task keeps waiting');
      onRefused?.(target.taskId, target.key);
      return accepted;
    }
    const principal = principalOfAuth(authInfo);
    try {
      const task = await store.sendInput(target.taskId, principal, { [target.key]: message.result });
      if (task) log.info({ event: 'task.input', generation: '2025-11-25' }, 'input response received');
      else log.debug({ event: 'task.input.dropped' }, 'an input response for an unknown task');
    } catch (err) {
      if (!(err instanceof InputResponseError)) {
        log.error({ event: 'task.input.failed', err: (err as Error).message }, 'could not deliver an input response');
        return new Response(null, { status: 503 });
      }
      log.info({ event: 'task.input.invalid', reason: err.message }, 'an input response that does not fit its request');
      // visible: the question comes again (a handle call answers with it as text), and the POST is answered with why
      if (target.viaHandle) onRefused?.(target.taskId, target.key);
      else reasks?.reask(target.taskId, target.key);
      const error = { code: ProtocolErrorCode.InvalidParams, message: `Invalid input response: ${err.message}; the request is asked again`, data: { key: err.key, reason: err.reason } };
      return Response.json({ jsonrpc: '2.0', id: message.id, error }, { status: 400 });
    }
    return accepted;
  };
}

function rethrow(err: unknown): never {
  throw toProtocolError(err);
}
