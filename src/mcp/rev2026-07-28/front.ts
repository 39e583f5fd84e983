/**
 * `subscriptions/listen` with `notifications.taskIds` (2026-07-28, section G): one SSE stream
 * per request that first acknowledges the caller's own tasks among those asked for, then sends
 * each one's DetailedTask (what tasks/get would answer) now and on every change, last its
 * terminal state, and ends once every task ended or the client leaves. The SDK serves listen
 * requests for its own change filters only, so this one is answered in front of it.
 */
import {
  type AuthInfo,
  type JSONRPCErrorResponse,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
  SUBSCRIPTION_ID_META_KEY,
  type SubscriptionFilter,
  type SubscriptionsAcknowledgedNotification,
  type SubscriptionsListenResult,
} from '@modelcontextprotocol/server';
import type { TaskStatusNotificationV2, TaskSubscriptionNotificationsV2 } from '@modelcontextprotocol/ext-tasks/core/v2' with {
  'resolution-mode': 'import',
};
import * as z from 'zod';
import { isTaskId, isTerminal, logger, type TaskSnapshot, type TaskWatch } from '../../tasks';
import { toProtocolError, tasksCapabilityRequired } from '../core/errors';
import { declaresTasksIn, principalOfAuth } from '../core/negotiation';
import { toDetailedTask } from './wire';
import type { RequestBody } from '../http/body';
import type { McpContext } from '../context';
import { traceNotification } from '../tracing';

const REVISION = '2026-07-28';
const KEEP_ALIVE_MS = 15_000;
/** Tasks read at once while a stream opens. */
const OPEN_CONCURRENCY = 16;

const TaskIdsSchema = z.object({ taskIds: z.array(z.string()) }) satisfies z.ZodType<TaskSubscriptionNotificationsV2>;
const RequestIdSchema = z.union([z.string(), z.number()]);

/** The SDK's acknowledgement, its filter widened by the Tasks extension's taskIds. */
type TaskAcknowledgement = Omit<SubscriptionsAcknowledgedNotification, 'params'> & {
  jsonrpc: '2.0';
  params: Omit<SubscriptionsAcknowledgedNotification['params'], 'notifications'> & {
    notifications: SubscriptionFilter & TaskSubscriptionNotificationsV2;
  };
};

export function taskSubscriptions(mcp: McpContext) {
  const { watcher, limits, serverInfo } = mcp;
  const opts = { watcher, limits, serverInfo, pollIntervalMs: mcp.config.pollIntervalMs, strictHeaders: mcp.config.strictHeaders };
  const open = new Set<() => void>();
  const reserve = (caller: string, n: number) => opts.limits.reserve(caller, n, 'subscription');

  /** Resolves undefined for anything that is not a task subscription: the SDK serves it. */
  const serve = async (request: Request, authInfo: AuthInfo | undefined, body: RequestBody | undefined): Promise<Response | undefined> => {
    const message = listenRequest(request, opts.strictHeaders, body);
    if (!message) return undefined;
    const { id, params } = message;
    const meta = params._meta ?? {};
    if (meta[PROTOCOL_VERSION_META_KEY] !== REVISION) return undefined; // not the 2026 wire: the SDK answers
    try {
      if (!declaresTasksIn(meta)) throw tasksCapabilityRequired();
      const wanted = TaskIdsSchema.safeParse(params.notifications);
      if (!wanted.success)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params: notifications.taskIds must be an array of task ids');
      const ids = [...new Set(wanted.data.taskIds)].filter(isTaskId);
      const principal = principalOfAuth(authInfo);
      const release = reserve(principal ?? '', ids.length);
      const stream = await openStream(id, ids, principal, release, request.signal).catch((err) => {
        release();
        throw err;
      });
      return stream;
    } catch (err) {
      return errorResponse(id, toProtocolError(err));
    }
  };

  async function openStream(
    id: RequestId,
    ids: string[],
    principal: string | undefined,
    release: (some?: number) => void,
    signal: AbortSignal,
  ): Promise<Response> {
    const queue: Array<[string, TaskSnapshot | undefined]> = [];
    let onChange = (taskId: string, task: TaskSnapshot | undefined): void => void queue.push([taskId, task]);
    const watches = await openWatches(ids, principal, (taskId, task) => onChange(taskId, task));
    release(ids.length - watches.size); // unknown or foreign ones hold no place
    const accepted = ids.filter((taskId) => watches.has(taskId));
    const sse = sseWriter();
    let keepAlive: NodeJS.Timeout | undefined;
    const drop = (taskId: string) => {
      watches.get(taskId)?.stop();
      if (!watches.delete(taskId)) return;
      release(1);
      if (watches.size === 0) teardown(true);
    };
    const send = (taskId: string, task: TaskSnapshot | undefined) => {
      if (!watches.has(taskId)) return;
      if (task) {
        traceNotification('notifications/tasks', task);
        sse.write(taskNotification(task, id, opts.pollIntervalMs));
      }
      if (!task || isTerminal(task)) drop(taskId);
    };
    const teardown = (graceful: boolean) => {
      if (sse.closed) return;
      if (graceful) sse.write({ jsonrpc: '2.0', id, result: endOfSubscription(id, opts.serverInfo) });
      sse.close();
      for (const watch of watches.values()) watch.stop();
      watches.clear();
      release();
      clearInterval(keepAlive);
      signal.removeEventListener('abort', onAbort);
      open.delete(closeGracefully);
    };
    const closeGracefully = () => teardown(true);
    const onAbort = () => teardown(false); // the client left
    open.add(closeGracefully);
    sse.onCancel(onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    sse.write(acknowledgement(id, accepted));
    keepAlive = setInterval(() => sse.write(': keepalive\n\n'), KEEP_ALIVE_MS);
    if (accepted.length === 0) teardown(true);
    for (const [taskId, watch] of [...watches]) send(taskId, watch.initial);
    onChange = send;
    for (const [taskId, task] of queue.splice(0)) send(taskId, task);
    if (signal.aborted) onAbort(); // it left while its tasks were being read
    logger.debug({ event: 'tasks.subscribed', asked: ids.length, accepted: accepted.length }, 'task subscription opened');
    return new Response(sse.body, { status: 200, headers: SSE_HEADERS });
  }

  /** A watch of each of the caller's tasks among `ids`; all stopped again if Temporal fails. */
  async function openWatches(
    ids: string[],
    principal: string | undefined,
    onChange: (taskId: string, task: TaskSnapshot | undefined) => void,
  ) {
    const watches = new Map<string, TaskWatch>();
    try {
      await forEachLimited(ids, OPEN_CONCURRENCY, async (taskId) => {
        const watch = await opts.watcher.watch(taskId, principal, (task) => onChange(taskId, task));
        if (watch.initial) watches.set(taskId, watch);
      });
    } catch (err) {
      for (const watch of watches.values()) watch.stop();
      throw err;
    }
    return watches;
  }

  return { serve, closeAll: () => [...open].forEach((close) => close()) };
}

/** An SSE body to write JSON-RPC messages (or raw frames) to; writes after close are dropped. */
function sseWriter() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = () => {};
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => cancelled() });
  const writer = {
    body,
    closed: false,
    onCancel: (fn: () => void) => void (cancelled = fn),
    write(frame: object | string) {
      if (writer.closed) return;
      try {
        controller.enqueue(encoder.encode(typeof frame === 'string' ? frame : `event: message\ndata: ${JSON.stringify(frame)}\n\n`));
      } catch {
        cancelled(); // the stream broke under us: as if the client left
      }
    },
    close() {
      writer.closed = true;
      try {
        controller.close();
      } catch {
        // already cancelled by the reader
      }
    },
  };
  return writer;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** The listen request, when this POST is one that asks for task notifications. */
function listenRequest(request: Request, strictHeaders: boolean, read: RequestBody | undefined) {
  if (request.method !== 'POST' || !read) return undefined;
  const method = request.headers.get('mcp-method');
  // a missing header under --strict-headers, or a mismatched one, is the SDK's to refuse
  if (method === null ? strictHeaders : method !== 'subscriptions/listen') return undefined;
  if (!read.text.includes('taskIds') || read.json === undefined) return undefined;
  const body = read.json;
  const checked = specTypeSchemas.SubscriptionsListenRequest['~standard'].validate(body);
  const id = RequestIdSchema.safeParse((body as { id?: unknown }).id);
  if (checked.issues || !id.success) return undefined;
  // the SDK's filter schema drops taskIds: they are read from the body as sent
  const notifications = (body as { params: { notifications: Record<string, unknown> } }).params.notifications;
  if (!('taskIds' in notifications)) return undefined;
  return { id: id.data, params: { ...checked.value.params, notifications } };
}

function acknowledgement(id: RequestId, taskIds: string[]): TaskAcknowledgement {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { taskIds }, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
  };
}

function taskNotification(task: TaskSnapshot, id: RequestId, pollIntervalMs: number): TaskStatusNotificationV2 {
  return {
    jsonrpc: '2.0',
    method: 'notifications/tasks',
    params: { ...toDetailedTask(task, pollIntervalMs), _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
  };
}

function endOfSubscription(id: RequestId, serverInfo: McpContext['serverInfo']): SubscriptionsListenResult {
  return { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: serverInfo } };
}

function errorResponse(id: RequestId, err: ProtocolError): Response {
  const error: JSONRPCErrorResponse = {
    jsonrpc: '2.0',
    id,
    error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) },
  };
  // -32021 is an HTTP 400 like the SDK's own in-band answer; others ride a 200
  return Response.json(error, { status: err.code === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200 });
}

/** Runs fn over items, `limit` at a time; after a failure no new item starts, and it throws once all started ones ended. */
async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) await fn(items[next++]).catch((err) => void (failure ??= { err }));
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.err;
}
