/**
 * What every part of the MCP side is built with: one object, made once per server
 * (createMcpTasksServer). Each request adds only its own context (the SDK's) and its revision.
 */
import type { TaskWatcher, TemporalTaskStore } from '../tasks';
import type { ToolScopes } from './auth/tool-scopes';
import type { ServerConfig } from './config';
import type { TaskReader } from '../tasks';
import type { TaskListeners } from './task-listeners';
import type { ToolRegistry } from './core/tool-registry';
import type { WatchLimits } from '../tasks';

export interface McpContext {
  config: ServerConfig;
  serverInfo: { name: string; version: string };
  registry: ToolRegistry;
  store: TemporalTaskStore;
  /** Follows tasks (Temporal's history long-poll): tasks/result streams, subscriptions, task handles' waits. */
  watcher: TaskWatcher;
  /** What tasks/get reads through: a polled task is answered from its watch (unless turned off). */
  reader: TaskReader;
  /** Every stream or held call that follows a task holds one place. */
  limits: WatchLimits;
  /** Per-tool OAuth scopes (listing, the 403 challenge, the backstop on tools/call). */
  toolScopes: ToolScopes;
  /** 2025-11-25 tasks/list and the list task tool exist only with authentication and the McpOwner search attribute. */
  listing: boolean;
  /** A refused or dismissed input request, by task: a task handle's call of this replica waiting on it stops waiting. */
  inputRefused: TaskListeners;
}
