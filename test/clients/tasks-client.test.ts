/** The official Tasks client (@modelcontextprotocol/ext-tasks) against the real server and Temporal. */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { taskSession } from '../support/mcp';
import { useStack } from '../support/stack';

const stack = useStack();

const textOf = (result: any) => result.content.map((c: any) => c.text).join('');

test('settles wait_and_echo as a task', async () => {
  const { session, close } = await taskSession(stack.url);
  try {
    const execution = await session.callTool('wait_and_echo', { text: 'from a task', seconds: 1 });
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as any;
    expect(textOf(result)).toBe('from a task');
    expect(result.isError).toBeFalsy();
  } finally {
    await close();
  }
});

test.each([
  [{ action: 'accept', content: { approved: true, comment: 'fine' } }, false, /was approved\. Comment: fine/],
  [{ action: 'accept', content: { approved: false } }, true, /was rejected/],
  [{ action: 'decline' }, true, /not approved: the request was declined/],
])('approve_expense answered %j through the input handler', async (answer, isError, text) => {
  const seen: any[] = [];
  const { session, close } = await taskSession(stack.url, async (request: any) => {
    seen.push(request);
    return answer as any;
  });
  try {
    const execution = await session.callTool('approve_expense', { amount: 120, description: 'team lunch' });
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as any;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'elicitation', params: { message: 'Approve the expense of 120 for "team lunch"?' } });
    expect(Boolean(result.isError)).toBe(isError);
    expect(textOf(result)).toMatch(text);
  } finally {
    await close();
  }
});

test('cancels a waiting wait_and_echo: the task ends cancelled', async () => {
  const { session, close } = await taskSession(stack.url);
  try {
    const execution = await session.callTool('wait_and_echo', { text: 'never', seconds: 600 });
    const settled = execution.settle();
    await new Promise((r) => setTimeout(r, 500));
    await execution.cancel();
    const { outcome } = await settled;
    expect(outcome).toMatchObject({ status: 'cancelled' });
  } finally {
    await close();
  }
});
