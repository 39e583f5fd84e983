/**
 * A task's trace: the W3C traceparent of the span that started it, kept in its memo (a trace
 * id is no secret) so that any replica's later spans about the task (tasks/get, tasks/update,
 * tasks/cancel, task handles, notifications) link to it, and logs and the Temporal UI name it.
 * Only @opentelemetry/api: with tracing off no span records and nothing is stored.
 */
import { context, type Span, type SpanContext, trace, TraceFlags } from '@opentelemetry/api';

/** version 00, trace id, parent span id, flags (W3C Trace Context). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The traceparent of the active span when it records (sampled, tracing on); undefined otherwise. */
export function activeTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  const sc = span?.spanContext();
  if (!span?.isRecording() || !sc || !trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return undefined;
  const sc = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(sc) ? sc : undefined;
}

/** The trace id a task's log lines carry (`trace_id`, the name Temporal's interceptors give it in the worker's). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return spanContextOf(traceparent)?.traceId;
}

/** Spans already linked to a task's trace: a request that reads a task twice links it once. */
const linked = new WeakMap<Span, Set<string>>();

/** Links the active span (the request about this task) to the task's trace. */
export function linkToTask(task: { traceparent?: string } | undefined): void {
  const span = trace.getSpan(context.active());
  const target = spanContextOf(task?.traceparent);
  if (!span?.isRecording() || !target) return;
  const seen = linked.get(span) ?? linked.set(span, new Set()).get(span)!;
  if (seen.has(target.spanId)) return;
  seen.add(target.spanId);
  span.addLink({ context: target });
}
