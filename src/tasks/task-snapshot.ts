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
  /** The ttl the task was started with (TaskMemo.ttlMs), from which ttlMs is counted. */
  startTtlMs: number;
  owner?: string;
  statusMessage?: string;
  state: TaskState;
  /**
   * tasks/cancel was recorded for the workflow. The 2026-07-28 revision reports what the workflow
   * does with it (working until it ends); 2025-11-25 reports `cancelled` from then on.
   */
  cancelRequested?: boolean;
  /** Its workflow task keeps failing (statusMessage says why): no workflow code runs. */
  stuck?: boolean;
  /**
   * An activity is scheduled, running or retried: its reported progress (heartbeat details) can
   * change the statusMessage without a history event, so a watch re-reads the task at an interval.
   */
  activityRunning?: boolean;
  /** A running task's history length when read (events in its current run): whether it moved between two reads. */
  historyLength?: number;
  /** The trace of the task's start (TaskMemo.traceparent), when it was traced. */
  traceparent?: string;
  /** The counts of the activity whose report is the statusMessage (done of total), where it gave them. */
  progress?: ProgressCounts;
}

/** Units an activity reported done and, when known, in all (heartbeat details). */
export interface ProgressCounts {
  done?: number;
  total?: number;
}

export type TaskState =
  | { status: 'working' }
  | { status: 'input_required'; inputRequests: Record<string, InputRequest> }
  | { status: 'completed'; result: CallToolResult }
  | { status: 'failed'; error: JsonRpcError }
  /** undoFailures: 2025-11-25 only (withCancelFinal), a cancel whose undos did not all succeed. */
  | { status: 'cancelled'; undoFailures?: UndoFailure[] };

/** A step whose undo failed: it may still be in effect. */
export interface UndoFailure {
  step: string;
  reason: string;
}

export function isTerminal(task: TaskSnapshot): boolean {
  return task.state.status === 'completed' || task.state.status === 'failed' || task.state.status === 'cancelled';
}

/**
 * The task as the 2025-11-25 revision reports it: a requested cancel is final at once (its
 * tasks/cancel answers `cancelled`), and the workflow honours it (it ends cancelled, undone).
 * When some undo failed (the workflow ended failed with `data.undoFailures`), it still reads
 * `cancelled`, that revision's rule, and its statusMessage says which steps stayed in effect.
 */
export function withCancelFinal(task: TaskSnapshot): TaskSnapshot {
  if (!task.cancelRequested || task.state.status === 'cancelled') return task;
  const stayed = task.state.status === 'failed' ? undoFailuresOf(task.state.error) : [];
  const statusMessage =
    stayed.length > 0
      ? `cancelled, but ${stayed.length} step(s) could not be undone and may still be in effect: ${stayed.map((f) => `${f.step} (${f.reason})`).join('; ')}`
      : task.statusMessage;
  const state = stayed.length > 0 ? { status: 'cancelled' as const, undoFailures: stayed } : { status: 'cancelled' as const };
  return { ...task, state, ...(statusMessage !== undefined ? { statusMessage } : {}) };
}

/** The steps whose undo failed, as the runtime lists them in its error's data (docs/contract.md). */
function undoFailuresOf(error: JsonRpcError): UndoFailure[] {
  const list = (error.data as { undoFailures?: unknown } | undefined)?.undoFailures;
  if (!Array.isArray(list)) return [];
  return list.flatMap((f: { step?: unknown; reason?: unknown; error?: unknown }) =>
    typeof f?.step === 'string' ? [{ step: f.step, reason: String(f.reason ?? f.error ?? 'unknown failure') }] : [],
  );
}
