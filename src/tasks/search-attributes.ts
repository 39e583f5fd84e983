import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes kept current on every task's workflow (Keyword type). */
export const MCP_TOOL = defineSearchAttributeKey('McpTool', SearchAttributeType.KEYWORD);
export const MCP_TASK_STATUS = defineSearchAttributeKey('McpTaskStatus', SearchAttributeType.KEYWORD);
/** A keyed hash of the task's owner (never the principal itself): lists a caller's tasks without a scan. */
export const MCP_OWNER = defineSearchAttributeKey('McpOwner', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTES = [MCP_TOOL.name, MCP_TASK_STATUS.name, MCP_OWNER.name];
