/**
 * The structuredContent of a task handle: the one definition of its shape, which the handle text
 * fills and anything that reads a handle (the task card, tests) parses. It carries what a model
 * needs to act when it sees only structuredContent (pydantic-ai passes nothing else): the next
 * tool and its exact arguments, and each pending question with its schema.
 */
import * as z from 'zod';

export const TaskHandleSchema = z.object({
  taskId: z.string(),
  /** The tool that runs as the task (on the first and on full handles). */
  tool: z.string().optional(),
  status: z.enum(['working', 'input_required']),
  statusMessage: z.string().optional(),
  /** An activity's reported counts, where it gave them. */
  progress: z.object({ done: z.number().optional(), total: z.number().optional() }).optional(),
  /** The pending questions by key: complete requests (a form's `params.requestedSchema` is its JSON Schema). */
  inputRequests: z
    .record(z.string(), z.looseObject({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() }))
    .optional(),
  /** The task tool to call next. */
  next: z.string(),
  /**
   * Its exact arguments; for task_respond, an example answer per pending key, to be replaced by
   * the user's real answers. Left out of a short handle whose next call is task_wait: its only
   * argument is the taskId above (a 10-minute follow without progress is some 30 such handles).
   */
  nextArguments: z.record(z.string(), z.unknown()).optional(),
  /** How to follow and answer (on full handles only: the first, a new question, a refused answer). */
  instructions: z.string().optional(),
});
export type TaskHandle = z.infer<typeof TaskHandleSchema>;
