/**
 * Issue 35, items 1 and 2: one trace from the agent's request to the last undo, read back from
 * a real Jaeger v2 (scripts/jaeger.ts builds it; cold, minutes). `serve` and `worker` run as
 * processes with the standard OTEL_* variables pointing at it; the task's request carries a
 * traceparent in its `_meta`; the worker is SIGKILLed mid-activity and replaced; the task
 * continues as new between steps (MCP_HISTORY_LIMIT) and ends cancelled, its steps undone.
 */
import { randomBytes } from 'node:crypto';
import { ensureJaeger } from '../../scripts/jaeger';
import { type Jaeger, type JaegerSpan, startJaeger } from '../support/jaeger';
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, type TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';
import { createTask, sleep } from './support';

let temporal: TestTemporal | undefined;
let jaeger: Jaeger | undefined;
stopAllAfter(() => temporal);
afterAll(() => jaeger?.stop());

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

beforeAll(async () => {
  jaeger = await startJaeger(ensureJaeger((m) => console.log(`[traces] ${m}`)));
  temporal = await startTestTemporal();
}, 3_600_000);

test('request → start → workflow → activity → undo in one trace, across a worker SIGKILL and continue-as-new', async () => {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger!.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
  const first = await startWorker(temporal!.address, { ...otel, MCP_LOG_LEVEL: 'debug' });
  const { url, proc: serve } = await startServe(temporal!.address, [], { ...otel, MCP_HISTORY_LIMIT: '10' });

  const caller = newTraceparent();
  const taskId = await createTask(url, 'saga_job', { steps: 3, stepMs: 3000 }, { meta: { traceparent: caller.traceparent } });
  await pollTask(url, taskId, (t) => t.statusMessage === 'step 2/3', 60_000);
  await sleep(500); // mid-step: the activity is running
  first.child.kill('SIGKILL');
  await first.stop();
  const second = await startWorker(temporal!.address, { ...otel, MCP_LOG_LEVEL: 'debug' });
  await pollTask(url, taskId, (t) => t.statusMessage === 'step 3/3', 60_000);
  const cancelling = newTraceparent();
  await call(url, 'tasks/cancel', { taskId }, { meta: { traceparent: cancelling.traceparent } });
  expect(await pollTask(url, taskId, undefined, 60_000)).toMatchObject({ status: 'cancelled' });
  const reading = newTraceparent();
  await call(url, 'tasks/get', { taskId }, { meta: { traceparent: reading.traceparent } });

  // spans arrive in batches from three processes: wait until everything the checks read is there
  let seen: JaegerSpan[] = [];
  const spans = await waitFor(
    async () => {
      seen = await jaeger!.trace(caller.traceId);
      return arrived(seen) ? seen : undefined;
    },
    60_000,
    250,
    `the trace ${caller.traceId} in Jaeger incomplete`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${seen.map((s) => `${s.operationName} ${s.spanID} <- ${refs(s)[0]?.spanID}`).join(', ')}`);
  });
  const byName = (name: string) => spans.filter((s) => s.operationName === name);
  const [request] = byName('tools/call saga_job');
  expect(request.process.serviceName).toBe('mcp-temporal-tasks');
  expect(refs(request)).toEqual([{ refType: 'CHILD_OF', spanID: caller.spanId }]); // the caller's span
  const [start] = byName('StartWorkflow:saga_job');
  expect(refs(start)).toEqual([{ refType: 'CHILD_OF', spanID: request.spanID }]);
  const runs = byName('RunWorkflow:saga_job');
  expect(runs.length).toBeGreaterThanOrEqual(2); // the first run and those after continue-as-new
  expect(runs.every((r) => ancestors(r, spans).includes(start.spanID))).toBe(true);
  const steps = byName('RunActivity:sagaStep');
  const undos = byName('RunActivity:sagaUndo');
  for (const s of [...steps, ...undos]) expect(ancestors(s, spans)).toEqual(expect.arrayContaining([request.spanID, start.spanID]));
  expect(undos.map((u) => tag(u, 'temporalWorkflowId'))).toEqual(undos.map(() => taskId));
  // the step the SIGKILL cut off ran again on the second worker, in the same trace
  const retried = steps.filter((s) => Number(tag(s, 'temporalActivityAttempt')) >= 2);
  expect(retried.length).toBeGreaterThanOrEqual(1);
  expect(retried.every((s) => Number(processTag(s, 'process.pid')) === second.pid)).toBe(true);
  expect(spans.every((s) => s.traceID === caller.traceId)).toBe(true);

  // later requests about the task are traces of their own, linked to the task's
  for (const [later, name] of [
    [cancelling, 'tasks/cancel'],
    [reading, 'tasks/get'],
  ] as const) {
    const own = await waitFor(async () => (await jaeger!.trace(later.traceId)).find((s) => s.operationName === name), 30_000, 250, name);
    expect(own.references).toEqual(
      expect.arrayContaining([expect.objectContaining({ refType: 'FOLLOWS_FROM', traceID: caller.traceId, spanID: request.spanID })]),
    );
  }

  // its trace id is in the logs of both processes and in the Temporal UI's details and memo
  expect(logLines(serve.output()).find((l) => l.taskId === taskId && l.event === 'task.created')?.trace_id).toBe(caller.traceId);
  expect(logLines(second.output()).some((l) => l.taskId === taskId && l.trace_id === caller.traceId)).toBe(true);
  const handle = temporal!.client.workflow.getHandle(taskId);
  const description = await handle.describe();
  expect((description.memo?.mcpTask as { traceparent?: string }).traceparent).toBe(`00-${caller.traceId}-${request.spanID}-01`);
  const firstRun = temporal!.client.workflow.getHandle(taskId, description.raw.workflowExecutionInfo?.firstRunId ?? undefined);
  expect(await (await firstRun.describe()).staticDetails()).toBe(`trace ${caller.traceId}`); // the start's
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(metadata.currentDetails).toContain(`trace ${caller.traceId}`); // every run's, after continue-as-new too
  console.log(
    `[traces] ${spans.length} spans in trace ${caller.traceId}: ${runs.length} workflow runs, ${steps.length} step attempts ` +
      `(${retried.length} retried after the SIGKILL), ${undos.length} undos`,
  );
});

/** The undos, two runs or more, the retried step, and every activity's chain up to the request unbroken. */
function arrived(spans: JaegerSpan[]): boolean {
  const named = (name: string) => spans.filter((s) => s.operationName === name);
  const activities = [...named('RunActivity:sagaStep'), ...named('RunActivity:sagaUndo')];
  const [request] = named('tools/call saga_job');
  return (
    !!request &&
    named('RunActivity:sagaUndo').length >= 2 &&
    named('RunWorkflow:saga_job').length >= 2 &&
    activities.some((s) => Number(tag(s, 'temporalActivityAttempt')) >= 2) &&
    activities.every((s) => ancestors(s, spans).includes(request.spanID))
  );
}

function refs(span: JaegerSpan) {
  return span.references.map(({ refType, spanID }) => ({ refType, spanID }));
}

/** The span ids above `span` in its trace, nearest first (by CHILD_OF references). */
function ancestors(span: JaegerSpan, spans: JaegerSpan[]): string[] {
  const out: string[] = [];
  for (let at: JaegerSpan | undefined = span; at;) {
    const parent: string | undefined = at.references.find((r) => r.refType === 'CHILD_OF' && r.traceID === span.traceID)?.spanID;
    if (!parent || out.includes(parent)) break;
    out.push(parent);
    at = spans.find((s) => s.spanID === parent);
  }
  return out;
}

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const processTag = (span: JaegerSpan, key: string) => span.process.tags.find((t) => t.key === key)?.value;

function logLines(output: string): Array<Record<string, unknown>> {
  return output.split('\n').flatMap((line) => {
    try {
      return line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}
