/**
 * In front of the SDK's handler, for 2025-11-25 requests: a client answers an input request
 * (sent on a tasks/result stream, or on a task handle's call) by POSTing a JSON-RPC response,
 * which may reach any replica. So the request's id says what it answers
 * (`mcp-task-input:<taskId>:<key>`; the taskId is a bearer secret sent only to its own caller)
 * and `inputResponses` applies such answers to the task, exactly as 2026 tasks/update does.
 */
import {
  type AuthInfo,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/server';
import type { InputRequest } from '../../contract';
import { InputResponseError, isTaskId, logger } from '../../tasks';
import type { McpContext } from '../context';
import type { RequestBody } from '../http/body';
import { principalOfAuth } from '../core/negotiation';
import type { FrontHandler } from '../http/http-server';
import type { TaskListeners } from '../task-listeners';

const INPUT_ID_PREFIX = 'mcp-task-input:';
/**
 * The same, sent on a tool's own call answered with a task handle (../task-handles/). A 2025 request
 * does not say whether its client declared elicitation, so a `cancel` answer to one of these
 * (the user dismissed it, or a client without forms settled it) is no answer: the task keeps
 * waiting and the question is shown in the handle instead.
 */
const HANDLE_INPUT_ID_PREFIX = 'mcp-task-ask:';

/** An input request whose id names its task and key (answers are routed by it, on any replica). */
export function inputRequestMessage(taskId: string, key: string, request: InputRequest, viaHandle = false) {
  const { _meta, ...rest } = request.params as { _meta?: object };
  const params = { ...rest, _meta: { ..._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  return {
    jsonrpc: '2.0' as const,
    id: `${viaHandle ? HANDLE_INPUT_ID_PREFIX : INPUT_ID_PREFIX}${taskId}:${key}`,
    method: request.method,
    params,
  };
}

function parseInputRequestId(id: unknown): { taskId: string; key: string; viaHandle: boolean } | undefined {
  if (typeof id !== 'string') return undefined;
  const prefix = [INPUT_ID_PREFIX, HANDLE_INPUT_ID_PREFIX].find((p) => id.startsWith(p));
  if (!prefix) return undefined;
  const rest = id.slice(prefix.length);
  const colon = rest.indexOf(':');
  const taskId = rest.slice(0, colon);
  return colon > 0 && isTaskId(taskId) ? { taskId, key: rest.slice(colon + 1), viaHandle: prefix === HANDLE_INPUT_ID_PREFIX } : undefined;
}

/**
 * In front of the SDK's handler (which answers any POSTed response with 202 and drops it):
 * a client's answer to an input request sent on a tasks/result stream goes to its task, as
 * tasks/update would send it. Resolves undefined for anything else (the SDK serves it).
 */
export function inputResponses({ store, inputRefused }: McpContext, reasks: TaskListeners): FrontHandler {
  return async (request: Request, authInfo: AuthInfo | undefined, body: RequestBody | undefined): Promise<Response | undefined> => {
    if (request.method !== 'POST' || request.headers.has('mcp-method') || !body) return undefined; // responses carry no method
    if (!body.text.includes(INPUT_ID_PREFIX) && !body.text.includes(HANDLE_INPUT_ID_PREFIX)) return undefined;
    const message = body.json; // undefined when not JSON: the SDK answers the parse error
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return undefined;
    const accepted = new Response(null, { status: 202 });
    const target = parseInputRequestId(message.id);
    if (!target) {
      logger.debug({ event: 'task.input.dropped', id: message.id }, 'a response to no input request of ours');
      return accepted;
    }
    const log = logger.child({ taskId: target.taskId, key: target.key });
    if (isJSONRPCErrorResponse(message)) {
      // no answer: the task keeps waiting (a later tasks/result or a 2026 tasks/update can answer)
      log.info({ event: 'task.input.refused', error: message.error }, 'the client answered an input request with an error');
      inputRefused.emit(target.taskId, target.key); // a call of this replica waiting on it need not wait out its bound
      return accepted;
    }
    if (target.viaHandle && (message.result as { action?: unknown }).action === 'cancel') {
      log.info({ event: 'task.input.dismissed' }, 'an input request sent with a task handle was dismissed: the task keeps waiting');
      inputRefused.emit(target.taskId, target.key);
      return accepted;
    }
    const principal = principalOfAuth(authInfo);
    try {
      const task = await store.sendInput(target.taskId, principal, { [target.key]: message.result });
      if (task) log.info({ event: 'task.input', revision: '2025-11-25' }, 'input response received');
      else log.debug({ event: 'task.input.dropped' }, 'an input response for an unknown task');
    } catch (err) {
      if (!(err instanceof InputResponseError)) {
        log.error({ event: 'task.input.failed', err: (err as Error).message }, 'could not deliver an input response');
        return new Response(null, { status: 503 });
      }
      log.info({ event: 'task.input.invalid', reason: err.message }, 'an input response that does not fit its request');
      // visible: the question comes again (a handle call answers with it as text), and the POST is answered with why
      if (target.viaHandle) inputRefused.emit(target.taskId, target.key);
      else reasks.emit(target.taskId, target.key);
      const error = {
        code: ProtocolErrorCode.InvalidParams,
        message: `Invalid input response: ${err.message}; the request is asked again`,
        data: { key: err.key, reason: err.reason },
      };
      return Response.json({ jsonrpc: '2.0', id: message.id, error }, { status: 400 });
    }
    return accepted;
  };
}
