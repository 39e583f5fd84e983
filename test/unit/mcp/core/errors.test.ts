/** The protocol errors, and the one mapping from the task store's errors to them. */
import { ProtocolError } from '@modelcontextprotocol/server';
import {
  InvalidToolArgumentsError,
  MissingScopeError,
  TaskNotFoundError,
  TaskStoreUnavailableError,
  tasksCapabilityRequired,
  toProtocolError,
  UnknownToolError,
} from '../../../../src/mcp/core/errors';
import { InputResponseError, InvalidCursorError, ToolProtocolError, WatchLimitError } from '../../../../src/tasks';

const shape = (e: ProtocolError) => ({ code: e.code, message: e.message, data: e.data });

test('every unknown, malformed or foreign task is the same -32602', () => {
  expect(shape(new TaskNotFoundError())).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found', data: undefined });
});

test('codes, messages and data of the other errors', () => {
  expect(shape(new InvalidToolArgumentsError('greet', ['name: required', 'extra: unknown']))).toEqual({
    code: -32602,
    message: 'Invalid arguments for tool greet: name: required; extra: unknown',
    data: { issues: ['name: required', 'extra: unknown'] },
  });
  expect(shape(new UnknownToolError('no"pe'))).toMatchObject({ code: -32602, message: 'Unknown tool: "no\\"pe"' });
  expect(shape(new MissingScopeError('admin_echo', ['tools:admin', 'x']))).toMatchObject({
    code: -32600,
    message: 'Tool admin_echo needs scope tools:admin x; the token does not carry it',
  });
  expect(shape(new TaskStoreUnavailableError(new Error('connection refused')))).toMatchObject({
    code: -32603,
    message: 'The task store (Temporal) is unavailable: connection refused',
  });
  expect(new TaskStoreUnavailableError('plain').message).toBe('The task store (Temporal) is unavailable: plain');
  expect(shape(new WatchLimitError('caller', 2))).toMatchObject({ code: -32603, data: { scope: 'caller', limit: 2 } });
});

test('-32021 names the tasks extension in the data the spec requires', () => {
  const e = tasksCapabilityRequired();
  expect(e.code).toBe(-32021);
  expect(e.data).toEqual({ requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
  expect(e.message).toContain('io.modelcontextprotocol/tasks');
});

describe('toProtocolError', () => {
  test('a protocol error passes as it is', () => {
    const e = new TaskNotFoundError();
    expect(toProtocolError(e)).toBe(e);
  });

  test("a tool's own JSON-RPC error is sent as it is, data included", () => {
    expect(shape(toProtocolError(new ToolProtocolError({ code: -32001, message: 'quota exceeded', data: { retryAfter: 5 } })))).toEqual({
      code: -32001,
      message: 'quota exceeded',
      data: { retryAfter: 5 },
    });
  });

  test('an answer that does not fit and a cursor that is not ours are -32602', () => {
    expect(shape(toProtocolError(new InputResponseError('approval', 'must be boolean')))).toMatchObject({
      code: -32602,
      message: 'inputResponses.approval: must be boolean',
    });
    expect(shape(toProtocolError(new InvalidCursorError()))).toMatchObject({ code: -32602, message: 'Invalid cursor' });
  });

  test('anything else is the task store being unavailable (-32603), never "task not found"', () => {
    const e = toProtocolError(new Error('14 UNAVAILABLE: no connection'));
    expect(e).toBeInstanceOf(TaskStoreUnavailableError);
    expect(shape(e)).toMatchObject({ code: -32603, message: 'The task store (Temporal) is unavailable: 14 UNAVAILABLE: no connection' });
  });
});
