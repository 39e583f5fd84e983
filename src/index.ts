/**
 * `mcp-temporal-tasks`: the server side. Define tools once (`defineTool`), then build the MCP
 * endpoint from a Temporal client and the tools (`createMcpTasksServer`): Node http, any
 * fetch-style framework, or stdio.
 */
export { createMcpTasksServer, type McpTasksServer, type McpTasksServerOptions } from './mcp/server';
export {
  defineTool,
  type JsonSchemaObject,
  type PreTaskInput,
  type ResultMapping,
  type TaskMode,
  type ToolDefinition,
  type ToolWorkflow,
} from './tool-definition';
export { defineWorkflowTool, parseToolsFile, ToolsFileError, toolsFromFile, type WorkflowToolOptions } from './mcp/workflow-tools';
export { ConfigError, type ServerConfig, type ServerConfigInput } from './mcp/config';
export { TemporalTaskStore, type TaskPage, type TaskStoreOptions, toCallToolResult } from './tasks';
export type { TaskSnapshot, TaskState } from './tasks/task-snapshot';
export { StaticTokenVerifier } from './mcp/auth/static-tokens';
export type { OAuthSettings, OAuthSettingsInput } from './mcp/auth/oauth-config';
export {
  InvalidInputResponseError,
  InvalidToolArgumentsError,
  TaskNotFoundError,
  TaskStoreUnavailableError,
  UnknownToolError,
} from './mcp/core/errors';
export type { Readiness, RunningHttpServer } from './mcp/http/http-server';
export type { CallToolResult, ElicitResult, InputRequest, JsonRpcError, TaskMemo, TaskProgress } from './contract';
export { CONTRACT_VERSION } from './contract';
