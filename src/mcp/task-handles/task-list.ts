/**
 * task_list: the caller's tasks, a page at a time, and on the first page the tasks that wait for
 * an answer first, each with its questions and the exact task_respond call: a human answers days
 * later, from a new conversation, with the same credentials.
 */
import type { CallToolResult } from '../../contract';
import { InvalidCursorError, type TaskSnapshot, type TemporalTaskStore } from '../../tasks';
import { describeRequest, errorResult, nextStep, type TaskToolNames } from './handle-text';

/** Waiting tasks shown before the page, at most (newest first); more are on the pages in their place. */
export const MAX_WAITING_LISTED = 20;

export async function listTasks(
  store: TemporalTaskStore,
  names: TaskToolNames,
  cursor: string | undefined,
  principal: string | undefined,
): Promise<CallToolResult> {
  if (principal === undefined) return errorResult('Listing tasks needs an authenticated caller (this server runs without authentication).');
  try {
    const [page, waiting] = await Promise.all([
      store.listOwned(principal, cursor),
      cursor === undefined ? store.listWaiting(principal, MAX_WAITING_LISTED) : Promise.resolve([]),
    ]);
    const tasks = page.tasks.map(listed);
    const shown = new Set(waiting.map((t) => t.taskId));
    const lines = [
      ...waitingLines(waiting, names),
      ...(waiting.length && tasks.length > shown.size ? ['', 'Other tasks:'] : []),
      ...tasks
        .filter((t) => !shown.has(t.taskId))
        .map((t) => `- ${t.taskId} ${t.tool}: ${t.status}${t.statusMessage ? ` (${t.statusMessage})` : ''}, created ${t.createdAt}`),
    ];
    const more = page.nextCursor ? `\nMore: call ${names.list} with {"cursor":"${page.nextCursor}"}.` : '';
    return {
      content: [{ type: 'text', text: `${lines.length ? lines.join('\n') : 'No tasks.'}${more}` }],
      structuredContent: {
        ...(waiting.length ? { waiting: waiting.map((t) => ({ ...listed(t), inputRequests: pendingOf(t), ...nextStep(t, names) })) } : {}),
        tasks,
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      } as CallToolResult['structuredContent'], // InputRequests are JSON
    };
  } catch (err) {
    if (err instanceof InvalidCursorError) return errorResult('Invalid cursor: pass nextCursor exactly as a previous list gave it.');
    throw err;
  }
}

function listed(t: TaskSnapshot) {
  return {
    taskId: t.taskId,
    tool: t.tool,
    status: t.state.status,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
  };
}

function pendingOf(t: TaskSnapshot) {
  return t.state.status === 'input_required' ? t.state.inputRequests : {};
}

/** The waiting tasks, each with its questions (and their schemas) and the call that answers them. */
function waitingLines(waiting: TaskSnapshot[], names: TaskToolNames): string[] {
  if (waiting.length === 0) return [];
  const lines = [`Waiting for an answer (${waiting.length}); ask the user, then call ${names.respond} with their real answers:`];
  for (const t of waiting) {
    lines.push(`- ${t.taskId} ${t.tool}, created ${t.createdAt}${t.statusMessage ? ` (${t.statusMessage})` : ''}:`);
    for (const [key, request] of Object.entries(pendingOf(t))) lines.push(...describeRequest(key, request).map((l) => `  ${l}`));
    lines.push(`  answer: ${names.respond} ${JSON.stringify(nextStep(t, names).nextArguments)}`);
  }
  return lines;
}
