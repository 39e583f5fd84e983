/** The 2025-11-25 revision: experimental Tasks (a `task` param; tasks/get|result|list|cancel). */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ProtocolRevision } from '../revision';
import { InputReasks, inputRequestMessage, legacyInputResponses, legacyTasksCapability, registerLegacyTasksMethods, TASK_SUPPORT } from './tasks-methods';

/** This process's tasks/result streams, to ask again a question whose POSTed answer did not fit. */
const reasks = new InputReasks();
import { toLegacyTask } from './wire';

export const rev2025_11_25: ProtocolRevision = {
  era: 'legacy',
  capabilities: (listing) => ({ tasks: legacyTasksCapability(listing) }),
  methodHeader: false,
  // clients pick task mode per tool from tools/list (registerTool takes no `execution`)
  toolExecution: (mode) => ({ taskSupport: TASK_SUPPORT[mode] }),
  registerMethods: (server, deps) => registerLegacyTasksMethods(server, { ...deps, reasks }),
  // a 2025 request cannot say whether its client speaks Tasks (the server is stateless)
  callerSpeaksTasks: () => false,
  requestsTask: (params) => typeof params.task === 'object' && params.task !== null,
  // a task-augmented call of a tool whose taskSupport is `forbidden`
  refuseTaskOf: (tool) => new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${tool.name} does not support task-augmented calls`),
  taskRequired: (tool) => new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`),
  createTaskResult: (task, pollIntervalMs) => ({ task: toLegacyTask(task, pollIntervalMs) }),
  handleInput: 'stream',
  inputRequestMessage,
  // answers to input requests sent on tasks/result streams arrive as POSTed responses
  front: ({ store, inputRefused }) => ({ serve: legacyInputResponses(store, inputRefused, reasks) }),
};
