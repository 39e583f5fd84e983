/**
 * Server spans of MCP requests. The caller's W3C trace context comes in the request's `_meta`
 * (`traceparent`, `tracestate`, the MCP convention) or, failing that, its HTTP headers. Only
 * @opentelemetry/api is used here: without a registered tracer provider (tracing off) every
 * span is a no-op and nothing is recorded.
 */
import { type Context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { spanContextOf } from '../tasks';

const tracer = trace.getTracer('mcp-temporal-tasks');

/** The request's trace context: `_meta` first, then the HTTP headers; none: a new trace. */
export function callerContext(ctx: Pick<ServerContext, 'mcpReq' | 'http'>): Context {
  const meta = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
  if (typeof meta.traceparent === 'string') return propagation.extract(ROOT_CONTEXT, meta, metaGetter);
  const headers = ctx.http?.req?.headers;
  return headers ? propagation.extract(ROOT_CONTEXT, headers, headersGetter) : ROOT_CONTEXT;
}

const metaGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
};

const headersGetter = {
  keys: (carrier: Headers) => [...carrier.keys()],
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
};

/**
 * Runs `fn` in a server span named after the MCP method (and tool), continuing the caller's
 * trace; a thrown error marks the span as an error and is rethrown.
 */
export function inRequestSpan<R>(
  ctx: Pick<ServerContext, 'mcpReq' | 'http'>,
  name: string,
  attributes: Record<string, string>,
  fn: () => Promise<R>,
): Promise<R> {
  return tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, callerContext(ctx), async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a notification about a task sent from a watch (no request to continue): a span linked to the task's trace. */
export function traceNotification(method: string, task: { taskId: string; traceparent?: string }): void {
  const link = spanContextOf(task.traceparent);
  const options = {
    kind: SpanKind.PRODUCER,
    attributes: { 'mcp.method.name': method, 'mcp.task.id': task.taskId },
    links: link ? [{ context: link }] : [],
  };
  tracer.startSpan(method, options, ROOT_CONTEXT).end();
}

type Handler = (params: unknown, ctx: ServerContext) => unknown;

/**
 * Every request handler registered on `low` from now on runs in a request span (the method's
 * name, and the task's id for tasks/*): one hook for the revisions' tasks methods.
 */
export function traceRequestHandlers(low: Server): void {
  const register = low.setRequestHandler.bind(low) as (...args: unknown[]) => void;
  low.setRequestHandler = ((method: string, ...rest: unknown[]) => {
    const handler = rest.pop() as Handler;
    const traced: Handler = (params, ctx) =>
      inRequestSpan(ctx, method, { 'mcp.method.name': method, ...taskIdOf(params) }, async () => handler(params, ctx));
    register(method, ...rest, traced);
  }) as Server['setRequestHandler'];
}

function taskIdOf(params: unknown): Record<string, string> {
  const taskId = (params as { taskId?: unknown } | undefined)?.taskId;
  return typeof taskId === 'string' ? { 'mcp.task.id': taskId } : {};
}
