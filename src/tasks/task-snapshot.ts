import type { CallToolResult, InputRequest, JsonRpcError } from '../contract';


/** What the store knows about one task, in MCP terms; produced only by TemporalTaskStore. */
export interface TaskSnapshot {
  taskId: string;
  tool: string;
  /** The workflow run that answered (changes with continue-as-new). */
  runId?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  owner?: string;
  statusMessage?: string;
  state: TaskState;
}

export type TaskState =
  | { status: 'working' }
  | { status: 'input_required'; inputRequests: Record<string, InputRequest> }
  | { status: 'completed'; result: CallToolResult }
  | { status: 'failed'; error: JsonRpcError }
  | { status: 'cancelled' };

export function isTerminal(task: TaskSnapshot): boolean {
  return task.state.status === 'completed' || task.state.status === 'failed' || task.state.status === 'cancelled';
}
