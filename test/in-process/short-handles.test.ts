/**
 * Short repeated handles against a real Temporal: the first handle of a task explains, later
 * waits on it say what changed in a line, a new question or the end is told in full, and every
 * handle's structuredContent is a TaskHandle a model can act on alone.
 */
import { call } from '../support/mcp';
import { useStack } from '../support/stack';
import { TaskHandleSchema } from '../../src/mcp/task-handles/handle-schema';

const stack = useStack({ config: { handleWaitMs: 1000 } });
/** A 2026 client without Tasks and without elicitation: every answer goes through task_respond. */
const callTool = (name: string, args: Record<string, unknown>) =>
  call(stack.url, 'tools/call', { name, arguments: args }, { capabilities: {} });
const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

test('a long task: the first handle explains, each later wait is a line of what changed, the end is the result', async () => {
  const first = await callTool('provision_environment', { name: 'short', steps: 3, stepMs: 1500 });
  const handle = TaskHandleSchema.parse(first.structuredContent);
  expect(handle).toMatchObject({ status: 'working', tool: 'provision_environment', next: 'task_wait' });
  expect(handle.nextArguments).toEqual({ taskId: handle.taskId });
  expect(handle.instructions).toContain('task_wait');
  expect(text(first)).toContain('runs as a durable task');
  let later = await callTool('task_wait', { taskId: handle.taskId });
  const shorts: string[] = [];
  while (later.structuredContent?.status === 'working') {
    shorts.push(text(later));
    const data = TaskHandleSchema.parse(later.structuredContent);
    expect(data).toMatchObject({ taskId: handle.taskId, next: 'task_wait' });
    expect(data.instructions).toBeUndefined();
    later = await callTool('task_wait', { taskId: handle.taskId });
  }
  expect(shorts.length).toBeGreaterThan(0);
  for (const line of shorts) expect(line).toMatch(/^(Working|No change, still working)(: step \d\/3|: step \d: provisioning)?/);
  expect(Math.max(...shorts.map((s) => s.length))).toBeLessThan(text(first).length / 2);
  expect(text(later)).toBe('Environment short provisioned in 3 steps.');
});

test('a question: in full when new; a wait while it is pending repeats it in a line; the answer ends it', async () => {
  const first = await callTool('approve_expense', { amount: 3, description: 'short handles' });
  const handle = TaskHandleSchema.parse(first.structuredContent);
  expect(handle).toMatchObject({ status: 'input_required', next: 'task_respond' });
  expect(handle.nextArguments).toEqual({ taskId: handle.taskId, responses: { approval: { action: 'accept', content: {} } } });
  expect(handle.inputRequests?.approval.params?.requestedSchema).toMatchObject({ required: ['approved'] });
  const again = await callTool('task_wait', { taskId: handle.taskId });
  expect(text(again)).toBe(
    'Still waiting for the user\'s answer to "approval" (Approve the expense of 3 for "short handles"?). Next: task_respond with the taskId and their answers.',
  );
  expect(TaskHandleSchema.parse(again.structuredContent)).toMatchObject({ next: 'task_respond', inputRequests: { approval: {} } });
  // a refused answer is told in full again, with why
  const refused = await callTool('task_respond', { taskId: handle.taskId, responses: { approval: { action: 'accept', content: {} } } });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/not accepted[\s\S]*runs as a durable task/);
  let done = await callTool('task_respond', {
    taskId: handle.taskId,
    responses: { approval: { action: 'accept', content: { approved: true } } },
  });
  while (done.structuredContent?.status === 'working') done = await callTool('task_wait', { taskId: handle.taskId });
  expect(text(done)).toBe('Expense of 3 for "short handles" was approved.');
});

test('a wait that lands on another replica gets the full handle there (what was said is per replica), then short ones', async () => {
  const other = await stack.serve({ config: { handleWaitMs: 1000 } });
  const onOther = (name: string, args: Record<string, unknown>) =>
    call(other.url, 'tools/call', { name, arguments: args }, { capabilities: {} });
  const first = await callTool('provision_environment', { name: 'replicas', steps: 4, stepMs: 1500 });
  const { taskId } = TaskHandleSchema.parse(first.structuredContent);
  const short = await callTool('task_wait', { taskId });
  expect(TaskHandleSchema.parse(short.structuredContent).instructions).toBeUndefined();
  const there = await onOther('task_wait', { taskId });
  expect(TaskHandleSchema.parse(there.structuredContent)).toMatchObject({
    taskId,
    tool: 'provision_environment',
    next: 'task_wait',
    instructions: expect.stringContaining('task_wait'),
  });
  const thereAgain = await onOther('task_wait', { taskId });
  expect(TaskHandleSchema.parse(thereAgain.structuredContent).instructions).toBeUndefined(); // about 3 s into a 6 s run
  let end = thereAgain;
  while (end.structuredContent?.status === 'working') end = await onOther('task_wait', { taskId });
  expect(text(end)).toBe('Environment replicas provisioned in 4 steps.');
});
