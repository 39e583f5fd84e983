/** What the task card reads from task tool results (src/card/task-state.ts), without a browser. */
import { fieldValue, isRunning, progressOf, readResult } from '../../../src/card/task-state';

const handle = (extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: 'a handle' }],
  structuredContent: { taskId: 'task_1', tool: 'approve_expense', status: 'working', next: 'task_wait', ...extra },
});

describe('readResult', () => {
  test('a running handle: taskId, tool, status, statusMessage, progress; still running', () => {
    const state = readResult(handle({ statusMessage: 'exporting rows (4,000 of 10,000)' }));
    expect(state).toMatchObject({ taskId: 'task_1', tool: 'approve_expense', status: 'working', progress: { done: 4000, total: 10000 } });
    expect(isRunning(state)).toBe(true);
  });

  test('a pending elicitation is a question with its fields and required keys', () => {
    const requestedSchema = { type: 'object', properties: { approved: { type: 'boolean' }, bad: 3 }, required: ['approved', 7] };
    const state = readResult(
      handle({
        status: 'input_required',
        inputRequests: { approval: { method: 'elicitation/create', params: { message: 'OK?', requestedSchema } } },
      }),
    );
    expect(state.questions).toEqual([
      { key: 'approval', message: 'OK?', fields: { approved: { type: 'boolean' } }, required: ['approved'] },
    ]);
  });

  test('a request the card cannot answer (sampling) is a question without fields', () => {
    const state = readResult(handle({ status: 'input_required', inputRequests: { s: { method: 'sampling/createMessage', params: {} } } }));
    expect(state.questions).toEqual([{ key: 's', message: 'sampling/createMessage: answer it in the conversation', required: [] }]);
  });

  test("the tool's own result ends the card; a later result keeps the taskId and tool it knew", () => {
    const state = readResult({ content: [{ type: 'text', text: 'done' }] }, { taskId: 'task_1', tool: 't' });
    expect(state).toMatchObject({ taskId: 'task_1', tool: 't', status: 'completed', result: { text: 'done', isError: false } });
    expect(isRunning(state)).toBe(false);
  });

  test('cancelled and failed tasks show their status; an error result without one shows error', () => {
    expect(readResult({ content: [], structuredContent: { taskId: 'task_1', status: 'cancelled' } }).status).toBe('cancelled');
    expect(readResult({ isError: true, content: [], structuredContent: { taskId: 'task_1', status: 'failed' } }).status).toBe('failed');
    expect(readResult({ isError: true, content: [{ type: 'text', text: 'No such task' }] })).toMatchObject({
      status: 'error',
      result: { text: 'No such task', isError: true },
    });
  });

  test('an input_required round (a host that declared elicitation) shows its questions; the task stays the one known', () => {
    const round = {
      resultType: 'input_required',
      inputRequests: { approval: { method: 'elicitation/create', params: { message: 'OK?', requestedSchema: { properties: {} } } } },
    };
    const state = readResult(round, { taskId: 'task_1', tool: 't', statusMessage: 'waiting', status: 'working', questions: [] });
    expect(state).toMatchObject({ taskId: 'task_1', tool: 't', status: 'input_required', statusMessage: 'waiting' });
    expect(state.questions.map((q) => q.key)).toEqual(['approval']);
    expect(isRunning(state)).toBe(true);
  });

  test("a cancel's answer (cancelling) keeps the card following", () => {
    expect(isRunning(readResult({ content: [], structuredContent: { taskId: 'task_1', status: 'cancelling' } }))).toBe(true);
  });

  test('anything else is read without throwing: a running status without a taskId is not a handle', () => {
    expect(readResult(undefined).status).toBe('completed');
    expect(readResult({ structuredContent: { status: 'working' } }).status).toBe('completed');
    expect(readResult({ content: 'x', structuredContent: [1] }).result?.text).toBe('');
  });
});

describe('progressOf', () => {
  test.each([
    ['numbers the handle carries', { progress: { done: 3, total: 9 } }, undefined, { done: 3, total: 9 }],
    ['progress and total at the top', { progress: 5, total: 10 }, undefined, { done: 5, total: 10 }],
    ['an activity\'s "(done of total)"', {}, 'rows (1,000 of 2,500)', { done: 1000, total: 2500 }],
    ['a step count', {}, 'step 2/6: provisioning', { done: 2, total: 6 }],
    ['none', {}, 'waiting for approval', undefined],
  ])('%s', (_, data, message, expected) => expect(progressOf(data, message)).toEqual(expected));
});

describe('fieldValue', () => {
  test.each([
    [{ type: 'boolean' }, true, { value: true }],
    [{ type: 'boolean' }, false, { value: false }],
    [{ type: 'string' }, ' hi ', { value: 'hi' }],
    [{ type: 'string' }, '', {}],
    [{ type: 'integer' }, '4', { value: 4 }],
    [{ type: 'integer' }, '4.5', { error: 'a whole number is needed' }],
    [{ type: 'number' }, 'x', { error: 'a number is needed' }],
    [{ type: 'number', minimum: 1 }, '0', { error: 'at least 1' }],
    [{ type: 'number', maximum: 9 }, '10', { error: 'at most 9' }],
    [{ type: 'string', enum: ['a', 'b'] }, 'b', { value: 'b' }],
    [{ type: 'string', enum: ['a', 'b'] }, 'c', { error: 'one of a, b' }],
  ])('%j with %j', (schema, raw, expected) => expect(fieldValue(schema, raw)).toEqual(expected));
});
