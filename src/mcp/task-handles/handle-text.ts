/**
 * How a task looks to a caller that does not speak Tasks: an ordinary CallToolResult whose
 * text tells the model what runs and what to call next, and whose structuredContent carries
 * the same as data. Never a CreateTaskResult (such a caller must not receive one).
 */
import type { CallToolResult, InputRequest } from '../../contract';
import { type InputResponseError, type TaskSnapshot, ToolProtocolError } from '../../tasks';
import type { TaskHandle } from './handle-schema';
import type { Said } from './said-handles';

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

/** The handle of a task that has not ended (working or input_required), in full: the first of a task, or when the state calls for it. */
export function handleResult(task: TaskSnapshot, names: TaskToolNames, waitMs: number, note?: string): CallToolResult {
  const pending = pendingOf(task);
  const step = nextStep(task, names);
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
    lines.push(
      '',
      `Ask the user, then call ${names.respond} with ${JSON.stringify(step.nextArguments)} (their real answers).`,
      `Or call ${names.wait} with ${JSON.stringify({ taskId: task.taskId })}: a client that can show forms asks the user itself.`,
    );
  } else {
    lines.push('', `Next: call ${names.wait} with ${JSON.stringify(step.nextArguments)} to follow it (${followText(names, waitMs)}).`);
  }
  const instructions =
    keys.length > 0
      ? `Ask the user each question of inputRequests (a form's params.requestedSchema says what to ask), then call ${names.respond} with nextArguments, each example answer replaced by theirs: {"action":"accept","content":{...}} fitting the schema, or {"action":"decline"}. Never invent an answer.`
      : `It runs on without this conversation. Call ${names.wait} with nextArguments to follow it (${followText(names, waitMs)}).`;
  const handle: TaskHandle = { ...stateOf(task), tool: task.tool, ...step, instructions };
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured(handle) };
}

/**
 * A later handle of a task whose full handle this caller already got (`said`): what changed, in
 * a line. Its structuredContent names the next tool (and its arguments, when more than the taskId).
 */
export function shortHandleResult(task: TaskSnapshot, names: TaskToolNames, said: Said): CallToolResult {
  const pending = pendingOf(task);
  const keys = Object.keys(pending);
  const message = task.statusMessage ? `: ${task.statusMessage}` : '';
  let text: string;
  if (keys.length > 0) {
    const asked = keys.map((k) => `"${k}" (${questionOf(pending[k])})`).join(', ');
    text = `Still waiting for the user's answer to ${asked}. Next: ${names.respond} with the taskId and their answers.`;
  } else {
    // the next call is the one it has been making: only a change of status says it again
    text =
      said.status !== task.state.status
        ? `Answered, working again${message}. Next: ${names.wait}.`
        : said.statusMessage !== task.statusMessage
          ? `Working${message}.`
          : `No change, still working${message}.`;
  }
  const step = nextStep(task, names);
  const handle: TaskHandle = { ...stateOf(task), ...(keys.length > 0 ? step : { next: step.next }) };
  return { content: [{ type: 'text', text }], structuredContent: structured(handle) };
}

/** A handle as structuredContent: every value the schema allows is JSON (unknown there only for the answers' shapes). */
function structured(handle: TaskHandle): CallToolResult['structuredContent'] {
  return handle as CallToolResult['structuredContent'];
}

function pendingOf(task: TaskSnapshot): Record<string, InputRequest> {
  return task.state.status === 'input_required' ? task.state.inputRequests : {};
}

/** The handle's account of the task: its state, any counts, and the questions it waits for. */
function stateOf(task: TaskSnapshot): Pick<TaskHandle, 'taskId' | 'status' | 'statusMessage' | 'progress' | 'inputRequests'> {
  const pending = pendingOf(task);
  return {
    taskId: task.taskId,
    status: task.state.status === 'input_required' ? 'input_required' : 'working',
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    ...(task.progress ? { progress: task.progress } : {}),
    ...(Object.keys(pending).length > 0 ? { inputRequests: pending as TaskHandle['inputRequests'] } : {}),
  };
}

/** The task tool to call next and its exact arguments (for task_respond, an example answer per pending key). */
export function nextStep(task: TaskSnapshot, names: TaskToolNames): Pick<TaskHandle, 'next' | 'nextArguments'> {
  const pending = pendingOf(task);
  const keys = Object.keys(pending);
  if (keys.length === 0) return { next: names.wait, nextArguments: { taskId: task.taskId } };
  const responses = Object.fromEntries(keys.map((k) => [k, exampleAnswer(pending[k])]));
  return { next: names.respond, nextArguments: { taskId: task.taskId, responses } };
}

function followText(names: TaskToolNames, waitMs: number): string {
  return `each call waits up to ${Math.round(waitMs / 1000)} s; ${names.cancel} stops it`;
}

function questionOf(request: InputRequest): string {
  const params = request.params as { message?: unknown };
  return request.method === 'elicitation/create' ? String(params.message ?? '') : request.method;
}

/** A question as text plus its JSON schema, so the model can ask in chat. */
export function describeRequest(key: string, request: InputRequest): string[] {
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
