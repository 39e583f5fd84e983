/**
 * The activity side end to end (issue 22, items 5 and 8): real Temporal, a CLI worker and
 * `serve`. An activity's reported progress (heartbeat details) is the task's statusMessage for
 * tasks/get in both revisions and for a subscription, while it runs; a cancel during a
 * heartbeating() activity aborts its AbortSignal, and the compensation runs after.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, pollTask, subscribe } from '../support/mcp';
import { startInProcessWorker, uniqueTaskQueue } from '../support/in-process';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';

let temporal: TestTemporal;
let url: string;
const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-activity-'));
const lines = (file: string) =>
  fs.existsSync(path.join(ledger, file)) ? fs.readFileSync(path.join(ledger, file), 'utf8').trim().split('\n').filter(Boolean) : [];

const stack = useStack({ workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });
beforeAll(() => {
  ({ temporal, url } = stack);
});

const start = async (name: string, args: Record<string, unknown>) =>
  (await call(url, 'tools/call', { name, arguments: args })).taskId as string;
const ROWS = /^exporting rows \((\d{1,2},\d{3}) of 30,000\)$/;

test("export_report: tasks/get (2026-07-28 and 2025-11-25) and a subscription read the activity's progress while it runs, then the result", async () => {
  const started = Date.now();
  // 30 chunks of 1,000 rows, 250 ms each: about 7.5 s of activity
  const taskId = await start('export_report', { rows: 30_000, msPerChunk: 250 });
  const sub = await subscribe(url, [taskId]);
  await sub.next(); // the ack

  // 2026-07-28 tasks/get: the workflow's own message first, then the activity's, rising
  const first = await pollTask(url, taskId, (t) => ROWS.test(t.statusMessage ?? ''), 15_000);
  expect(first.status).toBe('working');
  const later = await pollTask(url, taskId, (t) => ROWS.test(t.statusMessage ?? '') && t.statusMessage !== first.statusMessage, 10_000);
  const rows = (t: any) => Number(ROWS.exec(t.statusMessage)![1].replace(',', ''));
  expect(rows(later)).toBeGreaterThan(rows(first));
  expect(Date.parse(later.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(first.lastUpdatedAt));

  // 2025-11-25 tasks/get, the 1.x SDK's client: the same
  const client2025 = new Client({ name: 'tasks-2025-11-25', version: '1.0.0' }, { capabilities: {} });
  await client2025.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const got = await client2025.experimental.tasks.getTask(taskId);
    expect(got.status).toBe('working');
    expect(got.statusMessage).toMatch(ROWS);
  } finally {
    await client2025.close();
  }

  // the subscription: heartbeats write no history event, the watch re-reads every 2 s while the activity runs
  const messages: string[] = [];
  for (;;) {
    const m = await sub.next(20_000);
    if (!m || m.method !== 'notifications/tasks') break;
    if (m.params.status === 'working' && m.params.statusMessage) messages.push(m.params.statusMessage);
    if (m.params.status === 'completed') {
      expect(m.params.result.content[0].text.split('\n')).toHaveLength(30_001);
      break;
    }
  }
  const progress = messages.filter((m) => ROWS.test(m));
  expect(progress.length).toBeGreaterThanOrEqual(2);
  expect(progress.map((m) => Number(ROWS.exec(m)![1].replace(',', '')))).toEqual(
    [...progress.map((m) => Number(ROWS.exec(m)![1].replace(',', '')))].sort((a, b) => a - b),
  );
  sub.close();

  console.log(`activity progress e2e: ${Date.now() - started} ms, ${progress.length} progress notifications: ${progress.join(' | ')}`);
});

test("the Temporal UI shows the progress: the pending activity's heartbeat details and its summary", async () => {
  const taskId = await start('export_report', { rows: 20_000, msPerChunk: 300 });
  const handle = temporal.client.workflow.getHandle(taskId);
  // the UI shows the pending activity's last heartbeat details as JSON (the first beat may carry none yet)
  const detail = await waitFor(async () => {
    const d = await handle.describe();
    const data = d.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0]?.data;
    const text = data ? Buffer.from(data).toString('utf8') : '';
    return text.includes('mcpProgress') ? JSON.parse(text) : undefined;
  }, 15_000);
  expect(detail).toEqual({ mcpProgress: { message: 'exporting rows', done: expect.any(Number), total: 20_000 } });
  const history = await handle.fetchHistory();
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  expect(Buffer.from(scheduled.userMetadata!.summary!.data!).toString('utf8')).toBe('"CSV export, 20000 rows"');
  await handle.cancel();
  expect((await pollTask(url, taskId)).status).toBe('cancelled');
});

test('a cancel during a heartbeating() activity aborts its AbortSignal; the compensation runs after the work stopped', async () => {
  const taskId = await start('keyed_job', { ms: 60_000 });
  const running = await pollTask(
    url,
    taskId,
    (t) => /^waiting for the confirmation, ms \([\d,]+ of 60,000\)$/.test(t.statusMessage ?? ''),
    15_000,
  );
  expect(running.status).toBe('working');
  const [key] = lines('attempts.log');
  expect(key).toMatch(new RegExp(`^${taskId}:[0-9a-f-]+:1$`));
  const cancelledAt = Date.now();
  await call(url, 'tasks/cancel', { taskId });
  const done = await pollTask(url, taskId, undefined, 30_000);
  expect(done.status).toBe('cancelled');
  // the signal aborted (within a heartbeat round trip), then the undo ran
  expect(lines('aborts.log')).toEqual([key]);
  expect(lines('undos.log')).toEqual([taskId]);
  const events = (await temporal.client.workflow.getHandle(taskId).fetchHistory()).events!;
  const order = events
    .filter((e) => e.activityTaskCanceledEventAttributes || e.activityTaskScheduledEventAttributes?.activityType?.name === 'keyedUndo')
    .map((e) => (e.activityTaskCanceledEventAttributes ? 'step cancelled' : 'undo scheduled'));
  expect(order).toEqual(['step cancelled', 'undo scheduled']);
  console.log(`cancel to cancelled: ${Date.now() - cancelledAt} ms`);
});

test('an activity that starts after the task was read: its progress still reaches tasks/get and a subscription', async () => {
  // its queue has no worker yet: the activity stays scheduled, and its start and heartbeats write no event
  const queue = uniqueTaskQueue('later');
  const taskId = await start('queued_job', { ms: 3_000, taskQueue: queue });
  const sub = await subscribe(url, [taskId]);
  await sub.next(); // the ack
  const handle = temporal.client.workflow.getHandle(taskId);
  await waitFor(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined), 15_000);
  // the second read of a polled task starts its watch; the reads after it may be answered by the watch
  for (let i = 0; i < 3; i++) expect((await call(url, 'tasks/get', { taskId })).status).toBe('working');

  const worker = await startInProcessWorker(temporal, { taskQueue: queue });
  try {
    const COUNTING = /^counting \(/;
    const polled = await pollTask(url, taskId, (t) => COUNTING.test(t.statusMessage ?? ''), 10_000, { intervalMs: 250 });
    expect(polled.status).toBe('working');
    const messages: string[] = [];
    for (;;) {
      const m = await sub.next(20_000);
      if (!m || m.method !== 'notifications/tasks' || m.params.status === 'completed') break;
      if (m.params.statusMessage) messages.push(m.params.statusMessage);
    }
    expect(messages.some((m) => COUNTING.test(m))).toBe(true);
    expect((await pollTask(url, taskId)).status).toBe('completed');
  } finally {
    sub.close();
    await worker.stop();
  }
});
