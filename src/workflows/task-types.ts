/** Shapes shared by the workflow runtime and the server; no runtime dependencies (workflow bundle). */
import type {
  ContentBlockV2,
  ElicitResultV2,
  InputRequestV2,
} from '@modelcontextprotocol/ext-tasks/core/v2' with { 'resolution-mode': 'import' };

/** What a tool's workflow returns: a CallToolResult (resultType is added on the wire). */
export interface CallToolResult {
  content: ContentBlockV2[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}
export type InputRequest = InputRequestV2;
export type ElicitResult = ElicitResultV2;

/** What a running tool workflow publishes about itself. */
export interface TaskProgress {
  status: 'working' | 'input_required';
  statusMessage?: string;
  lastUpdatedAt: string;
  inputRequests: Record<string, InputRequest>;
}

export const PROGRESS_MEMO_KEY = 'mcpProgress';
export const TASK_MEMO_KEY = 'mcpTask';
export const STATUS_SEARCH_ATTRIBUTE = 'McpTaskStatus';
export const MCP_PROTOCOL_ERROR = 'McpProtocolError';

/** Results above this fail the task clearly (Temporal refuses payloads over 2 MB). */
export const MAX_RESULT_BYTES = 1_500_000;
