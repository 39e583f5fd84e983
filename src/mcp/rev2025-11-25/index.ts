/** The 2025-11-25 revision: experimental Tasks (a `task` param; tasks/get|result|list|cancel). */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ProtocolRevision } from '../revision';
import { TaskListeners } from '../task-listeners';
import { inputRequestMessage, inputResponses } from './front';
import { registerTasksMethods } from './tasks-methods';
import { TASK_SUPPORT, toTask } from './wire';

/** This replica's tasks/result streams by task, to ask again a question whose POSTed answer did not fit. */
const reasks = new TaskListeners();

export const rev2025_11_25: ProtocolRevision = {
  name: '2025-11-25',
  sdkEra: 'legacy',
  // `list` only where tasks/list is served
  capabilities: (listing) => ({ tasks: { ...(listing ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } } }),
  methodHeader: false,
  // clients pick task mode per tool from tools/list (registerTool takes no `execution`)
  toolExecution: (mode) => ({ taskSupport: TASK_SUPPORT[mode] }),
  registerMethods: (server, mcp) => registerTasksMethods(server, mcp, reasks),
  // a 2025 request cannot say whether its client speaks Tasks (the server is stateless)
  callerSpeaksTasks: () => false,
  requestsTask: (params) => typeof params.task === 'object' && params.task !== null,
  // a task-augmented call of a tool whose taskSupport is `forbidden`
  refuseTaskOf: (tool) => new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${tool.name} does not support task-augmented calls`),
  taskRequired: (tool) => new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`),
  createTaskResult: (task, pollIntervalMs) => ({ task: toTask(task, pollIntervalMs) }),
  handleInput: 'stream',
  inputRequestMessage,
  // answers to input requests sent on tasks/result streams and task handles' calls arrive as POSTed responses
  front: (mcp) => ({ serve: inputResponses(mcp, reasks) }),
};
