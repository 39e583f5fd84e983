/** The task store as the MCP side and the CLI see it: what they import of src/tasks, and only that. */
export { connectClient, hasSearchAttributes, namespaceRetentionMs, type TemporalSettings, temporalSettings } from './connection';
export { loadDataConverter } from './data-converter';
export { whyResponseDoesNotFit } from './input-responses';
export { LOG_LEVELS, logger, setLogLevel, taskLog } from './logging';
export { isTaskId } from './task-id';
export { isTerminal, type TaskSnapshot, withCancelFinal } from './task-snapshot';
export { type TaskWatch, TaskWatcher } from './task-watcher';
export { InputResponseError, InvalidCursorError, type StartTaskInput, TemporalTaskStore, ToolProtocolError } from './temporal-task-store';
