import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
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

/** -32603 when Temporal cannot be reached: never a CreateTaskResult, never "task not found". */
export class TaskStoreUnavailableError extends ProtocolError {
  constructor(cause: unknown) {
    super(ProtocolErrorCode.InternalError, `The task store (Temporal) is unavailable: ${messageOf(cause)}`);
  }
}

/**
 * -32603 for a watch past a limit: a subscribed task, a 2025 tasks/result stream or a held call
 * (the SDK's own listen router answers its limit alike); the limit and its scope in `data`.
 */
export class WatchLimitError extends ProtocolError {
  constructor(scope: 'caller' | 'server', limit: number) {
    super(ProtocolErrorCode.InternalError, `Watch limit reached: at most ${limit} watched tasks (subscriptions, tasks/result streams, held calls) per ${scope} at once`, { scope, limit });
  }
}

/** -32021 with the data shape the spec requires. */
export function tasksCapabilityRequired(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `This request requires the client to declare the ${TASKS_EXTENSION} extension`,
  );
}

/** Lets protocol errors through; anything else from Temporal becomes TaskStoreUnavailableError. */
export function asProtocolError(err: unknown): ProtocolError {
  return err instanceof ProtocolError ? err : new TaskStoreUnavailableError(err);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
