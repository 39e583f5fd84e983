/** Mapping ends to results: the end table (docs/contract.md, "The end of a task": Temporal's close status alone decides), and a workflow result as a CallToolResult. */
import { endStatusOf, toCallToolResult } from '../../../src/tasks/task-outcome';

test.each([
  ['COMPLETED', 'completed'],
  ['CANCELLED', 'cancelled'],
  ['FAILED', 'failed'],
  ['TERMINATED', 'failed'],
  ['TIMED_OUT', 'failed'],
])('%s ends the task %s', (closeStatus, end) => {
  expect(endStatusOf(closeStatus)).toBe(end);
});

test.each(['RUNNING', 'PAUSED', 'CONTINUED_AS_NEW', 'UNSPECIFIED', 'constructor', '__proto__'])('%s is no end', (status) => {
  expect(endStatusOf(status)).toBeUndefined();
});

describe('a workflow result as a CallToolResult', () => {
  test('a CallToolResult passes through', () => {
    const r = { content: [{ type: 'text' as const, text: 'hi' }], isError: true, structuredContent: { a: 1 } };
    expect(toCallToolResult(r)).toBe(r);
  });
  test('a string is one text content', () => {
    expect(toCallToolResult('Hello')).toEqual({ content: [{ type: 'text', text: 'Hello' }] });
  });
  test('other JSON is structuredContent plus its JSON as text (non-objects wrapped as {result})', () => {
    expect(toCallToolResult({ a: 1 })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(toCallToolResult([1, 2])).toEqual({ content: [{ type: 'text', text: '[1,2]' }], structuredContent: { result: [1, 2] } });
    expect(toCallToolResult(42)).toEqual({ content: [{ type: 'text', text: '42' }], structuredContent: { result: 42 } });
    expect(toCallToolResult(undefined)).toEqual({ content: [{ type: 'text', text: 'null' }], structuredContent: { result: null } });
    expect(toCallToolResult({ content: 'not blocks' })).toMatchObject({ structuredContent: { content: 'not blocks' } });
  });
  test('`text` mapping: JSON as text only', () => {
    expect(toCallToolResult({ a: 1 }, 'text')).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
  });
});
