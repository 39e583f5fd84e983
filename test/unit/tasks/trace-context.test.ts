/**
 * A task's trace context (src/tasks/trace-context.ts) with the real OpenTelemetry SDK and an
 * in-memory exporter: what is stored of a span, parsed back, and the link a request about the
 * task gets (once, however often it reads the task).
 */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { activeTraceparent, linkToTask, spanContextOf, traceIdOf } from '../../../src/tasks/trace-context';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('a traceparent parses to its span context; anything else is no context', () => {
  expect(spanContextOf(TRACEPARENT)).toEqual({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
    isRemote: true,
  });
  expect(traceIdOf(TRACEPARENT)).toBe('0af7651916cd43dd8448eb211c80319c');
  for (const bad of [
    undefined,
    '',
    'garbage',
    '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  ])
    expect(spanContextOf(bad)).toBeUndefined();
});

test('without a tracer provider (tracing off) nothing is stored and nothing is linked', () => {
  const span = trace.getTracer('t').startSpan('x');
  context.with(trace.setSpan(context.active(), span), () => {
    expect(activeTraceparent()).toBeUndefined();
    expect(() => linkToTask({ traceparent: TRACEPARENT })).not.toThrow();
  });
});

describe('with a tracer provider', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register()); // the AsyncLocalStorage context, as the CLI's startTracing registers it
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  test('the active span is stored as a traceparent, and a request reading the task twice links its trace once', async () => {
    const tracer = provider.getTracer('t');
    const started = tracer.startActiveSpan('tools/call', (span) => {
      const stored = activeTraceparent();
      span.end();
      return stored;
    });
    expect(started).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await tracer.startActiveSpan('tasks/get', async (span) => {
      linkToTask({ traceparent: started });
      await Promise.resolve();
      linkToTask({ traceparent: started }); // e.g. tasks/cancel: read, cancel, read again
      linkToTask({}); // a task started untraced
      span.end();
    });
    const get = exporter.getFinishedSpans().find((s) => s.name === 'tasks/get')!;
    expect(get.links.map((l) => l.context)).toEqual([spanContextOf(started)]);
  });

  test('a span sampled out is not stored (nothing of it will be exported)', () => {
    const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 });
    context.with(trace.setSpan(context.active(), span), () => expect(activeTraceparent()).toBeUndefined());
  });
});
