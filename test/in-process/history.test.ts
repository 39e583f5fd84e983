/** Bounded history: coalesced progress, continue-as-new for chatty tools; input requests that are withdrawn. */
import type { WorkflowHandle } from '@temporalio/client';
import { call, pollTask } from '../support/mcp';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';

let temporal: TestTemporal;
let url: string;
const LIMIT = 100;

const stack = useStack({ config: { historyLimit: LIMIT, pollIntervalMs: 200 } });
beforeAll(() => {
  ({ temporal, url } = stack);
});

async function runsOf(taskId: string) {
  const handle = temporal.client.workflow.getHandle(taskId);
  const runs = [];
  for (let runId: string | undefined = (await handle.describe()).runId; runId;) {
    const d = await temporal.client.workflow.getHandle(taskId, runId).describe();
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await temporal.client.workflow
      .getHandle(taskId, runId)
      .fetchHistory();
    runs.push({ d, events: history.events ?? [] });
    const first = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    runId = first?.continuedExecutionRunId || undefined;
  }
  return runs.reverse();
}

test('a tool reporting 10,000 status messages keeps every run under the history limit, coalesces writes, and completes', async () => {
  const { taskId } = await call(url, 'tools/call', { name: 'chatty_job', arguments: { messages: 10_000 } });
  const done = await pollTask(url, taskId, undefined, 240_000);
  expect(done.status).toBe('completed');
  expect(done.result.content[0].text).toBe('sent 10000 messages');
  const runs = await runsOf(taskId);
  expect(runs.length).toBeGreaterThan(3);
  for (const { events } of runs) expect(events.length).toBeLessThan(LIMIT + 20);
  // a hundred messages per activation: one memo write each, not a hundred
  const writes = runs.flatMap((r) => r.events).filter((e) => e.workflowPropertiesModifiedEventAttributes).length;
  expect(writes).toBeLessThanOrEqual(10_000 / 100 + runs.length);
  const events = runs.reduce((n, r) => n + r.events.length, 0);
  console.log(
    `[history] chatty_job: ${runs.length} runs, ${events} events for 10,000 messages (${(events / 10_000).toFixed(2)} per message), ${writes} memo writes`,
  );
  // the task's identity survives continue-as-new, and so does its summary: Temporal carries no
  // summary to the next run, so every run's memo and current details hold it
  const last = runs[runs.length - 1].d;
  expect(last.searchAttributes.McpTool).toEqual(['chatty_job']);
  expect((last.memo?.mcpTask as { summary?: string }).summary).toBe('chatty_job(messages=10000)');
});

describe('withdrawn input requests', () => {
  test('an unanswered question is withdrawn after its timeout: the key leaves inputRequests and a late answer changes nothing', async () => {
    const { taskId } = await call(url, 'tools/call', { name: 'timed_question', arguments: { seconds: 2 } });
    const asking = await pollTask(url, taskId, (t) => t.status === 'input_required');
    expect(Object.keys(asking.inputRequests)).toEqual(['question']);
    const done = await pollTask(url, taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content[0].text).toBe('no answer: cancel');
    await call(url, 'tasks/update', { taskId, inputResponses: { question: { action: 'accept', content: { ok: true } } } });
    expect((await call(url, 'tasks/get', { taskId })).result.content[0].text).toBe('no answer: cancel');
  });

  test('answered in time, the same question completes with the answer', async () => {
    const { taskId } = await call(url, 'tools/call', { name: 'timed_question', arguments: { seconds: 60 } });
    await pollTask(url, taskId, (t) => t.status === 'input_required');
    await call(url, 'tasks/update', { taskId, inputResponses: { question: { action: 'accept', content: { ok: true } } } });
    expect((await pollTask(url, taskId)).result.content[0].text).toBe('answered');
  });

  test('a withdrawn key is not outstanding while the task runs on', async () => {
    const { taskId } = await call(url, 'tools/call', { name: 'timed_question', arguments: { seconds: 1 } });
    await pollTask(url, taskId, (t) => t.status === 'input_required');
    const after = await pollTask(url, taskId, (t) => t.status !== 'input_required');
    expect(after.inputRequests).toBeUndefined();
  });
});
