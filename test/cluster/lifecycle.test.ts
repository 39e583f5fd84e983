/**
 * The Tasks lifecycle and task handles on a Temporal cluster on PostgreSQL (two history hosts),
 * through two `serve` replicas and two workers: every task's requests spread over both replicas;
 * a subscription on one replica to tasks started on the other, across a history host's SIGKILL.
 */
import { call, pollTask, subscribe } from '../support/mcp';
import { ledgerCounts } from '../support/ledger';
import { createTask } from '../support/mcp-client';
import { answerEventually, report, useClusterStack } from './support';

const stack = useClusterStack({ serveArgs: ['--handle-wait-ms', '3000'] });
const PLAIN = { capabilities: {} }; // no Tasks extension declared: task handles

test('Tasks: create on A, get on B, update on A, cancel on B, as on one dev server', async () => {
  const [a, b] = stack.urls;
  const approvals = await Promise.all(
    Array.from({ length: 6 }, (_, i) => createTask(a, 'approve_expense', { amount: i + 1, description: `item ${i}` })),
  );
  const longs = await Promise.all(Array.from({ length: 3 }, () => createTask(a, 'wait_and_echo', { text: 'x', seconds: 600 })));
  const envs = await Promise.all(
    Array.from({ length: 4 }, (_, i) => createTask(b, 'provision_environment', { name: `e${i}`, steps: 2, stepMs: 300 })),
  );

  for (const id of approvals)
    expect((await pollTask(b, id, (t) => t.status === 'input_required')).inputRequests).toHaveProperty('approval');
  for (const id of approvals)
    await call(a, 'tasks/update', { taskId: id, inputResponses: { approval: { action: 'accept', content: { approved: true } } } });
  for (const id of longs) await call(b, 'tasks/cancel', { taskId: id });

  const approved = await Promise.all(approvals.map((id, i) => pollTask(i % 2 ? a : b, id)));
  const cancelled = await Promise.all(longs.map((id) => pollTask(a, id)));
  const provisioned = await Promise.all(envs.map((id) => pollTask(a, id)));
  approved.forEach((t, i) => expect(t.result.content[0].text).toBe(`Expense of ${i + 1} for "item ${i}" was approved.`));
  expect(cancelled.map((t) => t.status)).toEqual(Array(3).fill('cancelled'));
  expect(provisioned.map((t) => t.status)).toEqual(Array(4).fill('completed'));
  const duplicated = [...ledgerCounts(stack.ledger, 'effects.log').values()].filter((n) => n > 1).length;
  expect(duplicated).toBe(0);
  report('cluster lifecycle', { started: 13, completed: 10, cancelled: 3, lost: 0, duplicated });
});

test('task handles: a call on A hands back a handle; task_wait on B, task_respond on A, the result on B', async () => {
  const [a, b] = stack.urls;
  const tool = (url: string, name: string, args: Record<string, unknown>) => call(url, 'tools/call', { name, arguments: args }, PLAIN);
  const handle = await tool(a, 'approve_expense', { amount: 9, description: 'handles' });
  const { taskId, status } = handle.structuredContent;
  expect(status).toBe('input_required');
  expect((await tool(b, 'task_wait', { taskId })).structuredContent).toMatchObject({ taskId, status: 'input_required' });
  let result = await tool(a, 'task_respond', { taskId, responses: { approval: { action: 'accept', content: { approved: true } } } });
  while (['working', 'input_required'].includes(result.structuredContent?.status)) result = await tool(b, 'task_wait', { taskId });
  expect(result.isError).toBeFalsy();
  expect(result.content[0].text).toBe('Expense of 9 for "handles" was approved.');

  const long = await tool(b, 'provision_environment', { name: 'undo', steps: 6, stepMs: 1000 });
  const cancelled = await tool(a, 'task_cancel', { taskId: long.structuredContent.taskId });
  expect(cancelled.isError).toBeFalsy();
  const ended = await pollTask(b, long.structuredContent.taskId);
  expect(ended.status).toBe('cancelled');
});

test('subscriptions: B streams the tasks A started, through an answer on A and a history host SIGKILL, to their ends', async () => {
  const [a, b] = stack.urls;
  const approval = await createTask(a, 'approve_expense', { amount: 3, description: 'sub' });
  const provision = await createTask(a, 'provision_environment', { name: 'sub', steps: 4, stepMs: 1000 });
  const sub = await subscribe(b, [approval, provision]);
  expect((await sub.next()).params.notifications.taskIds).toEqual([approval, provision]);
  const seen: any[] = [];
  for (let m = await sub.next(60_000); m; m = await sub.next(60_000)) {
    if (m.method !== 'notifications/tasks') continue;
    seen.push(m.params);
    if (m.params.taskId === approval && m.params.status === 'input_required') break;
  }
  await stack.tc.crash('history-1');
  await answerEventually(a, approval, { approval: { action: 'accept', content: { approved: true } } });
  const rest = await sub.rest(120_000);
  const completed = rest.filter((m) => m.params?.status === 'completed').map((m) => m.params.taskId);
  expect(completed.sort()).toEqual([approval, provision].sort());
  expect(rest.at(-1).result.resultType).toBe('complete');
  report('cluster subscription', { subscribed: 2, completed: completed.length, notifications: seen.length + rest.length - 1 });
});
