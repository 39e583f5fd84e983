import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { InputResponseError, InvalidCursorError, ToolProtocolError } from '../../tasks';
import { TASKS_EXTENSION } from './negotiation';

/** -32602 for an unknown, malformed, expired or foreign taskId: all answered the same. */
export class TaskNotFoundError extends ProtocolError {
  constructor() {
    super(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
  }
}

/** -32602 for tool arguments that do not fit the tool's schema. */
export class InvalidToolArgumentsError extends ProtocolError {
  constructor(tool: string, issues: string[]) {
    super(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool ${tool}: ${issues.join('; ')}`, { issues });
  }
}

/** -32602 for a tasks/update answer that does not fit its request; the task keeps waiting. */
export class InvalidInputResponseError extends ProtocolError {
  constructor(message: string) {
    super(ProtocolErrorCode.InvalidParams, message);
  }
}

export class UnknownToolError extends ProtocolError {
  constructor(name: unknown) {
    super(ProtocolErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}`);
  }
}

/** A tool the caller's token has no scope for (the HTTP layer answers 403 first where it can). */
export class MissingScopeError extends ProtocolError {
  constructor(tool: string, missing: string[]) {
    super(ProtocolErrorCode.InvalidRequest, `Tool ${tool} needs scope ${missing.join(' ')}; the token does not carry it`);
  }
}

/** -32603 when Temporal cannot be reached: never a CreateTaskResult, never "task not found". */
export class TaskStoreUnavailableError extends ProtocolError {
  constructor(cause: unknown) {
    super(ProtocolErrorCode.InternalError, `The task store (Temporal) is unavailable: ${messageOf(cause)}`);
  }
}

/** -32021 with the data shape the spec requires. */
export function tasksCapabilityRequired(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `This request requires the client to declare the ${TASKS_EXTENSION} extension`,
  );
}

/**
 * The one mapping from the task store's errors to protocol errors, for every method of both
 * revisions: protocol errors pass; a tool's own JSON-RPC error (a run or a handle that ended
 * failed) is sent as it is; an answer that does not fit its request and a cursor that is not
 * ours are -32602; anything else from Temporal is TaskStoreUnavailableError (-32603).
 */
export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof ToolProtocolError) return new ProtocolError(err.error.code, err.error.message, err.error.data);
  if (err instanceof InputResponseError) return new InvalidInputResponseError(err.message);
  if (err instanceof InvalidCursorError) return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  return new TaskStoreUnavailableError(err);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
