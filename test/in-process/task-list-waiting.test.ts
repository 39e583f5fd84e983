/**
 * Approvals that outlive the conversation: with authentication, task_list from a new
 * conversation (a new client, the same credentials) shows the tasks waiting for an answer first,
 * with their questions and the exact task_respond call; answering from there completes the task.
 */
import { call } from '../support/mcp';
import { useStack } from '../support/stack';
import { sleep } from '../support/wait';

const stack = useStack({ config: { handleWaitMs: 1000 } });
let url: string;
beforeAll(async () => {
  ({ url } = await stack.serve({ config: { handleWaitMs: 1000 }, tokens: 'alice:tok-a,bob:tok-b' }));
});

const as = (token: string) => (name: string, args: Record<string, unknown>) =>
  call(url, 'tools/call', { name, arguments: args }, { capabilities: {}, headers: { authorization: `Bearer ${token}` } });
const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

/** task_list until the task shows (visibility lags by a second or so). */
async function listedWith(callTool: ReturnType<typeof as>, taskId: string): Promise<any> {
  for (let i = 0; i < 40; i++) {
    const page = await callTool('task_list', {});
    if (page.structuredContent?.waiting?.some((t: any) => t.taskId === taskId)) return page;
    await sleep(250);
  }
  throw new Error(`${taskId} never listed as waiting`);
}

test('task_list shows the tasks waiting for an answer first, with their questions; answered from there, the task completes', async () => {
  const alice = as('tok-a');
  const asking = await alice('approve_expense', { amount: 77, description: 'answered days later' });
  const { taskId } = asking.structuredContent;
  const running = await alice('provision_environment', { name: 'listed', steps: 2, stepMs: 2000 });

  // a new conversation: nothing but the credentials
  const later = as('tok-a');
  const page = await listedWith(later, taskId);
  const waiting = page.structuredContent.waiting.find((t: any) => t.taskId === taskId);
  expect(waiting).toMatchObject({
    tool: 'approve_expense',
    status: 'input_required',
    next: 'task_respond',
    nextArguments: { taskId, responses: { approval: { action: 'accept', content: {} } } },
    inputRequests: { approval: { params: { requestedSchema: { required: ['approved'] } } } },
  });
  const listing = text(page);
  expect(listing.startsWith('Waiting for an answer')).toBe(true);
  expect(listing).toContain('Approve the expense of 77 for "answered days later"?');
  expect(listing.indexOf(taskId)).toBeLessThan(listing.indexOf(running.structuredContent.taskId));
  expect(page.structuredContent.tasks.map((t: any) => t.taskId)).toEqual(
    expect.arrayContaining([taskId, running.structuredContent.taskId]),
  );

  // another caller's waiting tasks are not shown
  const bobs = await as('tok-b')('task_list', {});
  expect(bobs.structuredContent.waiting).toBeUndefined();

  const responses = { approval: { action: 'accept', content: { approved: true } } };
  let done = await later(waiting.next, { ...waiting.nextArguments, responses });
  while (done.structuredContent?.status === 'working') done = await later('task_wait', { taskId });
  expect(text(done)).toBe('Expense of 77 for "answered days later" was approved.');
  await alice('task_cancel', { taskId: running.structuredContent.taskId });
});
