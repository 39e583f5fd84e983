/** The 2026-07-28 revision: the Tasks extension (tasks/get|update|cancel, subscriptions/listen). */
import { tasksCapabilityRequired } from '../core/errors';
import { declaresTasks, TASKS_EXTENSION } from '../core/negotiation';
import type { ProtocolRevision } from '../revision';
import { taskSubscriptions } from './front';
import { registerTasksMethods } from './tasks-methods';
import { toCreateTaskResult } from './wire';

export const rev2026_07_28: ProtocolRevision = {
  name: '2026-07-28',
  sdkEra: 'modern',
  capabilities: () => ({ extensions: { [TASKS_EXTENSION]: {} } }),
  methodHeader: true,
  registerMethods: registerTasksMethods,
  callerSpeaksTasks: declaresTasks,
  // params.task is ignored: only the extension, declared on this request, opts in
  requestsTask: (_params, ctx) => declaresTasks(ctx),
  refuseTaskOf: () => undefined,
  taskRequired: () => tasksCapabilityRequired(),
  createTaskResult: toCreateTaskResult,
  handleInput: 'answer',
  // task subscriptions (subscriptions/listen with taskIds), which the SDK does not serve
  front: (mcp) => {
    const subscriptions = taskSubscriptions(mcp);
    return { serve: subscriptions.serve, close: subscriptions.closeAll };
  },
};
