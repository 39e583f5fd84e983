import * as z from 'zod';

/**
 * The params of every method that names one task, in both revisions (tasks/get, update, cancel,
 * result). taskId is checked by hand (isTaskId), after the capability check: the 2026 revision
 * answers a missing extension (-32021) before a bad taskId (-32602), and every unknown,
 * malformed or foreign taskId gets the same TaskNotFoundError.
 */
export const TaskIdParamsSchema = z.looseObject({ taskId: z.unknown() });
