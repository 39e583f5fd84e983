/** The task tools (wait, respond, cancel, list) that follow a task handle, as tools/list shows them. */
import * as z from 'zod';
import type { ToolDefinition } from '../../tool-definition';
import type { TaskToolNames } from './handle-text';

const taskIdArg = z.string().max(200).describe('The taskId a tool result gave');

/** `listing`: the list tool exists only where tasks/list would (authentication and the McpOwner search attribute). */
export function taskToolDefinitions(n: TaskToolNames, waitMs: number, listing: boolean): ToolDefinition[] {
  const bound = seconds(waitMs);
  const tool = (name: string, description: string, inputSchema: z.ZodObject): ToolDefinition => ({
    name,
    description,
    inputSchema,
    taskMode: 'never',
  });
  const tools = [
    tool(
      n.wait,
      `Waits (up to ${bound}) for a task that a tool returned as a task handle to end or to need an answer; returns its result once it ended, else its status and any questions it waits for. Call it again while the task is still running.`,
      z.object({
        taskId: taskIdArg,
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(3_600_000)
          .optional()
          .describe(`Return after at most this many ms even if nothing changed (0: at once; the server's bound caps it)`),
      }),
    ),
    tool(
      n.respond,
      `Answers questions a task waits for (listed by ${n.wait} or the task handle, by key), then waits like ${n.wait}. Ask the user first; never invent their answer.`,
      z.object({
        taskId: taskIdArg,
        responses: z
          .record(z.string(), z.unknown())
          .describe('key -> answer; a form question: {"action":"accept","content":{...}} or {"action":"decline"}'),
      }),
    ),
    tool(
      n.cancel,
      'Cancels a running task (cooperatively: it undoes the steps it had done, then ends cancelled). Use it only when the user wants the task stopped.',
      z.object({ taskId: taskIdArg }),
    ),
  ];
  if (listing)
    tools.push(
      tool(
        n.list,
        `Lists your tasks, also those started in earlier conversations: first the ones waiting for an answer, with their questions and the ${n.respond} call that answers them; then all (taskId, tool, status), newest first, a page at a time.`,
        z.object({ cursor: z.string().max(10_000).optional() }),
      ),
    );
  return tools;
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
