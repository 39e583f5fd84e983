/**
 * The server's spans (src/mcp/tracing.ts, src/tasks/trace-context.ts) with the real OpenTelemetry
 * SDK registered in this process and an in-memory exporter: the caller's traceparent from the
 * HTTP headers, the task's trace kept in its memo, later requests and notifications linked to
 * it, a failed request's span marked. (The `_meta` path and the worker's spans, across processes
 * and a real collector: test/faults/traces.test.ts.)
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { randomBytes } from 'node:crypto';
import { TASK_MEMO_KEY, type TaskMemo } from '../../src/contract';
import { call, createTask, pollTask, rpc, subscribe } from '../support/mcp';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const stack = useStack();

const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const linkedTo = (span: ReadableSpan) => span.links.map((l) => l.context.traceId);

test('a traceparent header is continued; the task keeps its trace; tasks/get is a trace of its own linked to it', async () => {
  const [traceId, spanId] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
  const taskId = await createTask(
    stack.url,
    'wait_and_echo',
    { text: 'hi', seconds: 30 },
    { headers: { traceparent: `00-${traceId}-${spanId}-01` } },
  );
  const request = spans('tools/call wait_and_echo').find((s) => s.spanContext().traceId === traceId)!;
  expect(request.parentSpanId).toBe(spanId);
  expect(request.kind).toBe(SpanKind.SERVER);
  expect(request.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'wait_and_echo' });
  const memo = (await stack.temporal.client.workflow.getHandle(taskId).describe()).memo?.[TASK_MEMO_KEY] as TaskMemo;
  expect(memo.traceparent).toBe(`00-${traceId}-${request.spanContext().spanId}-01`);

  await call(stack.url, 'tasks/get', { taskId });
  const [get] = spans('tasks/get');
  expect(get.spanContext().traceId).not.toBe(traceId); // no traceparent sent: a trace of its own…
  expect(get.links.map((l) => l.context)).toEqual([expect.objectContaining({ traceId, spanId: request.spanContext().spanId })]); // …linked
  expect(get.attributes).toMatchObject({ 'mcp.method.name': 'tasks/get', 'mcp.task.id': taskId });

  await call(stack.url, 'tasks/cancel', { taskId });
  const [cancel] = spans('tasks/cancel');
  expect(linkedTo(cancel)).toEqual([traceId]); // read, cancel, read again: linked once
});

test('tasks/update, the answer to a task’s question, is a span linked to the task’s trace', async () => {
  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const taskId = await createTask(stack.url, 'approve_expense', { amount: 5, description: 'x' }, { headers: { traceparent } });
  await pollTask(stack.url, taskId, (t) => t.status === 'input_required');
  await call(stack.url, 'tasks/update', { taskId, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
  const [update] = spans('tasks/update');
  expect(update.attributes).toMatchObject({ 'mcp.method.name': 'tasks/update', 'mcp.task.id': taskId });
  expect(linkedTo(update)).toEqual([traceId]);
});

test('a notification from a subscription is a span linked to the task’s trace', async () => {
  const traceId = randomBytes(16).toString('hex');
  const taskId = await createTask(
    stack.url,
    'wait_and_echo',
    { text: 'hi', seconds: 1 },
    { meta: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } },
  );
  const sub = await subscribe(stack.url, [taskId]);
  try {
    await waitFor(
      async () => (spans('notifications/tasks').some((s) => linkedTo(s).includes(traceId)) ? true : undefined),
      20_000,
      100,
      'no notification span',
    );
  } finally {
    sub.close();
  }
  const sent = spans('notifications/tasks').find((s) => linkedTo(s).includes(traceId))!;
  expect(sent.kind).toBe(SpanKind.PRODUCER);
  expect(sent.attributes).toMatchObject({ 'mcp.task.id': taskId });
});

test('2025-11-25: a status notification on a tasks/result stream is a span linked to the task’s trace', async () => {
  const traceId = randomBytes(16).toString('hex');
  const legacy = { revision: '2025-11-25' as const, headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } };
  const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'hi', seconds: 1 }, legacy);
  await call(stack.url, 'tasks/result', { taskId }, { revision: '2025-11-25' }); // held until the end, telling the changes
  const sent = spans('notifications/tasks/status').filter((s) => linkedTo(s).includes(traceId));
  expect(sent.length).toBeGreaterThanOrEqual(1);
  expect(sent[0].attributes).toMatchObject({ 'mcp.task.id': taskId });
});

test('a task handle call (a caller without Tasks) is a span linked to the task’s trace', async () => {
  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const taskId = await createTask(stack.url, 'wait_and_echo', { text: 'hi', seconds: 30 }, { headers: { traceparent } });
  await call(stack.url, 'tools/call', { name: 'task_cancel', arguments: { taskId } }, { capabilities: {} });
  const [handleCall] = spans('tools/call task_cancel');
  expect(handleCall.attributes).toMatchObject({ 'gen_ai.tool.name': 'task_cancel' });
  expect(linkedTo(handleCall)).toEqual([traceId]);
});

test('a request that fails ends its span as an error; a name that is no tool does not become a span name', async () => {
  const { body } = await rpc(stack.url, 'tools/call', { name: 'no_such_tool_x', arguments: {} });
  expect(body.error).toBeDefined();
  const failed = spans('tools/call').find((s) => s.status.code === SpanStatusCode.ERROR)!;
  expect(failed.status.message).toMatch(/no_such_tool_x/);
  expect(exporter.getFinishedSpans().some((s) => s.name.includes('no_such_tool_x'))).toBe(false);
});
