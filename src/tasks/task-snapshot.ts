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
  /**
   * tasks/cancel was recorded for the workflow. The 2026 generation reports what the workflow
   * does with it (working until it ends); 2025-11-25 reports `cancelled` from then on.
   */
  cancelRequested?: boolean;
  /** Its workflow task keeps failing (statusMessage says why): no workflow code runs. */
  stuck?: boolean;
  /**
   * An activity attempt is running: its reported progress (heartbeat details) can change the
   * statusMessage without a history event, so a watch re-reads the task at an interval.
   */
  activityRunning?: boolean;
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

/**
 * The task as the 2025-11-25 generation reports it: a requested cancel is final at once (its
 * tasks/cancel answers `cancelled`), and the workflow honours it (it ends cancelled, undone).
 */
export function withCancelFinal(task: TaskSnapshot): TaskSnapshot {
  return task.cancelRequested && task.state.status !== 'cancelled' ? { ...task, state: { status: 'cancelled' } } : task;
}
