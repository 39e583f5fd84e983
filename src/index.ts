/**
 * `mcp-temporal-tasks`: the server side. Define tools once (`defineTool`), then build the MCP
 * endpoint from a Temporal client and the tools (`createMcpTasksServer`): Node http, any
 * fetch-style framework, or stdio.
 */
export { createMcpTasksServer, type McpTasksServer, type McpTasksServerOptions } from './server';
export { defineTool, type PreTaskInput, type TaskMode, type ToolDefinition, type ToolWorkflow } from './tools/registry';
export { ConfigError, type ServerConfig, type ServerConfigInput } from './config';
export { TemporalTaskStore, type TaskPage, type TaskStoreOptions } from './tasks/temporal-task-store';
export type { TaskSnapshot, TaskState } from './tasks/task-snapshot';
export { StaticTokenVerifier } from './mcp/auth';
export {
  InvalidInputResponseError,
  InvalidToolArgumentsError,
  TaskNotFoundError,
  TaskStoreUnavailableError,
  UnknownToolError,
} from './mcp/errors';
export type { RunningHttpServer } from './mcp/http-server';
export type { CallToolResult, ElicitResult, InputRequest, JsonRpcError } from './contract';
