/**
 * How a task looks to a caller that does not speak Tasks: an ordinary CallToolResult whose
 * text tells the model what runs and what to call next, and whose structuredContent carries
 * the same as data. Never a CreateTaskResult (such a caller must not receive one).
 */
import type { CallToolResult, InputRequest } from '../../contract';
import { type InputResponseError, type TaskSnapshot, ToolProtocolError } from '../../tasks';

/** The task tools' names, under the configured prefix. */
export interface TaskToolNames {
  wait: string;
  respond: string;
  cancel: string;
  list: string;
}

export function taskToolNames(prefix: string): TaskToolNames {
  return { wait: `${prefix}wait`, respond: `${prefix}respond`, cancel: `${prefix}cancel`, list: `${prefix}list` };
}

/** The handle of a task that has not ended (working or input_required). */
export function handleResult(task: TaskSnapshot, names: TaskToolNames, waitMs: number, note?: string): CallToolResult {
  const pending = task.state.status === 'input_required' ? task.state.inputRequests : {};
  const waitArgs = JSON.stringify({ taskId: task.taskId });
  const lines = [
    ...(note ? [note] : []),
    `"${task.tool}" runs as a durable task and has not finished yet (it keeps running without this conversation).`,
    `taskId: ${task.taskId}`,
    `status: ${task.state.status}${task.statusMessage ? ` (${task.statusMessage})` : ''}`,
  ];
  const keys = Object.keys(pending);
  if (keys.length > 0) {
    lines.push('', `It waits for ${keys.length === 1 ? 'an answer' : `${keys.length} answers`}:`);
    for (const key of keys) lines.push(...describeRequest(key, pending[key]));
    const example = Object.fromEntries(keys.map((k) => [k, exampleAnswer(pending[k])]));
    lines.push(
      '',
      `Ask the user, then call ${names.respond} with {"taskId":"${task.taskId}","responses":${JSON.stringify(example)}} (their real answers).`,
      `Or call ${names.wait} with ${waitArgs}: a client that can show forms asks the user itself.`,
    );
  } else {
    lines.push(
      '',
      `Next: call ${names.wait} with ${waitArgs} to follow it (each call waits up to ${Math.round(waitMs / 1000)} s); ${names.cancel} stops it.`,
    );
  }
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      taskId: task.taskId,
      tool: task.tool,
      status: task.state.status,
      ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
      ...((keys.length > 0 ? { inputRequests: pending } : {}) as Record<string, never>), // InputRequests are JSON
      next: keys.length > 0 ? names.respond : names.wait,
    },
  };
}

/** A question as text plus its JSON schema, so the model can ask in chat. */
function describeRequest(key: string, request: InputRequest): string[] {
  const params = request.params as { message?: unknown; requestedSchema?: unknown; messages?: unknown };
  if (request.method === 'elicitation/create') {
    return [
      `- "${key}": ${String(params.message ?? '')}`,
      `  answer {"action":"accept","content":{…}} where content fits: ${JSON.stringify(params.requestedSchema ?? {})}`,
      `  (or {"action":"decline"})`,
    ];
  }
  if (request.method === 'sampling/createMessage') {
    return [
      `- "${key}": a model completion is requested: ${JSON.stringify(params.messages ?? [])}`,
      `  answer {"role":"assistant","content":{"type":"text","text":"…"},"model":"<your model>"}`,
    ];
  }
  return [`- "${key}": ${request.method} ${JSON.stringify(request.params ?? {})}`];
}

function exampleAnswer(request: InputRequest): unknown {
  if (request.method === 'elicitation/create') return { action: 'accept', content: {} };
  if (request.method === 'sampling/createMessage') return { role: 'assistant', content: { type: 'text', text: '…' }, model: '…' };
  return {};
}

/** A terminal task as a wait/respond answer: the tool's own result, or the reason it did not give one. */
export function outcomeResult(task: TaskSnapshot): CallToolResult {
  const s = task.state;
  if (s.status === 'completed') return s.result;
  const data = { taskId: task.taskId, tool: task.tool, status: s.status };
  if (s.status === 'failed') {
    return {
      isError: true,
      content: [{ type: 'text', text: `The task ${task.taskId} ("${task.tool}") failed: ${s.error.message} (code ${s.error.code}).` }],
      structuredContent: { ...data, error: s.error as never },
    };
  }
  return {
    content: [
      {
        type: 'text',
        text: `The task ${task.taskId} ("${task.tool}") was cancelled; whatever it had done and knows how to undo was undone.`,
      },
    ],
    structuredContent: data,
  };
}

/** Unknown, expired, malformed or another caller's: one answer for all. */
export function notFoundResult(): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: 'No such task: the taskId is unknown, expired or not yours. Use the taskId exactly as a tool result gave it.' },
    ],
  };
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function refusalNote(err: InputResponseError): string {
  return `The answer to "${err.key}" was not accepted: ${err.reason}. The task still waits for it; answer again.`;
}

/** The round asked again after a refused answer: the refused form's message starts with why (a user reads it). */
export function withRefusal(requests: Record<string, InputRequest>, err: InputResponseError): Record<string, InputRequest> {
  const request = requests[err.key];
  const params = request.params as { message?: unknown };
  const message = `${refusalNote(err)}\n\n${String(params.message ?? '')}`;
  return { ...requests, [err.key]: { ...request, params: { ...params, message } } as InputRequest };
}

/** Ended within the bound: answered exactly as the synchronous call answers (a failure is a JSON-RPC error). */
export function syncOutcome(task: TaskSnapshot): CallToolResult {
  const s = task.state;
  if (s.status === 'completed') return s.result;
  if (s.status === 'failed') throw new ToolProtocolError(s.error);
  throw new ToolProtocolError({ code: -32603, message: 'The tool was cancelled' });
}
