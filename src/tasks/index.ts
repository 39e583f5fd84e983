/**
 * The task store, as code outside src/tasks sees it: the store (TemporalTaskStore and its
 * errors), the task's shape, the watch (TaskWatcher, PolledTasks, WatchLimits), and the
 * connection, logging and id helpers the server and the CLI share.
 */
export { TemporalTaskStore } from './temporal-task-store';
export type { NamespaceFacts, TaskStoreOptions } from './store-options';
export { type RunFollow, type StartTaskInput, ToolProtocolError } from './start/task-starts';
export { RunningTaskQuotaError } from './list/quotas';
export { InvalidCursorError, type TaskPage } from './list/owned-tasks';
export { CANCELLING_MESSAGE } from './read/task-reads';
export { InputResponseError, whyResponseDoesNotFit } from './input-responses';
export { toCallToolResult, type ToolResultSpec } from './task-outcome';
export { isTerminal, type ProgressCounts, type TaskSnapshot, type TaskState, type UndoFailure, withCancelFinal } from './task-snapshot';
export { isTaskId } from './store-parts';
export { TaskWatcher, type TaskListener, type TaskWatch } from './watch/task-watcher';
export { PolledTasks, type PolledTasksOptions, type TaskReader } from './watch/polled-tasks';
export { type Release, WatchLimitError, WatchLimits } from './watch/watch-limits';
export { connectClient, hasSearchAttributes, namespaceRetentionMs, type TemporalSettings, temporalSettings } from './connection';
export { loadDataConverter } from './data-converter';
export { activeTraceparent, linkToTask, spanContextOf, traceIdOf } from './trace-context';
export { LOG_LEVELS, type LogLevel, logger, setLogLevel, taskLog } from './logging';
