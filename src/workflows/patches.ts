import { patched, workflowInfo } from '@temporalio/workflow';
import { TASK_MEMO_KEY, TASK_RUNTIME_REVISION, type TaskMemo } from '../contract';

/**
 * Changes to the commands a task's workflow emits, behind patched() so that tasks started by an
 * older build replay: each is checked only where the old and new code differ.
 */
export const PATCHES = {
  /** A cancel requested before the task's completion is recorded ends it cancelled, undone. */
  lateCancel: 'mcp-tasks.late-cancel-honoured',
  /** Progress reaches the memo once per activation (was: after a microtask turn, twice per input round). */
  flushPerActivation: 'mcp-tasks.flush-per-activation',
  /** A plain Error (a bug) fails the workflow task, retried until a fixed build runs it, not the task. */
  bugsRetry: 'mcp-tasks.bugs-retry',
  /** waitOrContinueAsNew: a pinned task waiting for input continues as new onto a new target build when woken. */
  upgradeWhileWaiting: 'mcp-tasks.upgrade-while-waiting',
  /** A run started with claimWithinMs cancels itself unless its handle was claimed in time. */
  claimGuard: 'mcp-tasks.claim-guard',
} as const;

/**
 * Whether `patch` applies to this task. A task started for runtime revision 2 or later
 * (TaskMemo.runtime, set by the server in the start event, so replay decides alike) takes every
 * change above with no marker: a marker is a history event, plus the SDK's TemporalChangeVersion
 * upsert, on every task, for a choice its start event already records. On replay the patch is
 * still asked, so a marker that a worker of an older build wrote for such a task is matched
 * (asked during replay without one, patched() answers false and emits nothing).
 */
export function applies(patch: (typeof PATCHES)[keyof typeof PATCHES]): boolean {
  if (!startedAtRuntimeRevision()) return patched(patch);
  if (workflowInfo().unsafe.isReplaying && patched(patch)) olderWorkerRan = true;
  return true;
}

/** A marker was met on replay: a worker that did not know the revision ran part of this run. */
let olderWorkerRan = false;

/**
 * Whether this run may take revision 2's lean end (no progress write in the activation that
 * ends the task: nobody can read it). Not once an older worker ran part of the run: it wrote
 * that progress at the end, and replay must ask for the same. Progress pending at the end was
 * published, and such a worker's first publish left its flush-per-activation marker, which
 * replay meets at that same publish, before the end.
 */
export function leanEnd(): boolean {
  return startedAtRuntimeRevision() && !olderWorkerRan;
}

/** The task was started for this runtime revision or a later one. */
function startedAtRuntimeRevision(): boolean {
  return ((workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.runtime ?? 0) >= TASK_RUNTIME_REVISION;
}
