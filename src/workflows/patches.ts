import { patched, workflowInfo } from '@temporalio/workflow';
import { TASK_MEMO_KEY, type TaskMemo } from '../contract';

/** A change to the commands a task's workflow emits, and the task runtime revision it arrived in. */
export interface Patch {
  id: string;
  /** TASK_RUNTIME_REVISION of the build that shipped it: tasks started for it or later take it with no marker. */
  revision: number;
}

/**
 * Changes to the commands a task's workflow emits, behind patched() so that tasks started by an
 * older build replay: each is checked only where the old and new code differ. A new change gets
 * the next revision (bump TASK_RUNTIME_REVISION with it): tasks started before that revision ask
 * patched(), as their histories hold no such change.
 */
export const PATCHES = {
  /** A cancel requested before the task's completion is recorded ends it cancelled, undone. */
  lateCancel: { id: 'mcp-tasks.late-cancel-honoured', revision: 2 },
  /** Progress reaches the memo once per activation (was: after a microtask turn, twice per input round). */
  flushPerActivation: { id: 'mcp-tasks.flush-per-activation', revision: 2 },
  /** A plain Error (a bug) fails the workflow task, retried until a fixed build runs it, not the task. */
  bugsRetry: { id: 'mcp-tasks.bugs-retry', revision: 2 },
  /** waitOrContinueAsNew: a pinned task waiting for input continues as new onto a new target build when woken. */
  upgradeWhileWaiting: { id: 'mcp-tasks.upgrade-while-waiting', revision: 2 },
  /** A run started with claimWithinMs cancels itself unless its handle was claimed in time. */
  claimGuard: { id: 'mcp-tasks.claim-guard', revision: 2 },
  /** The end is decided once (src/workflows/end.ts): a cancellation nobody requested and the claim guard end it failed. */
  oneEnd: { id: 'mcp-tasks.one-end', revision: 3 },
  /** An unclaimed chain carries its claim deadline across continue-as-new. */
  claimAcrossRuns: { id: 'mcp-tasks.claim-across-runs', revision: 3 },
  /** An input timeout is one deadline: a partial answer does not restart it. */
  inputDeadline: { id: 'mcp-tasks.input-deadline', revision: 3 },
  /** Undos that would travel with a continue-as-new are refused past UNDO_BUDGET_BYTES, and closures in loop() at the first turn. */
  boundedUndos: { id: 'mcp-tasks.bounded-undos', revision: 3 },
  /** Input requests unanswered for TaskMemo.answerWithinMs end the task failed (McpTaskUnanswered). */
  answerDeadline: { id: 'mcp-tasks.answer-deadline', revision: 4 },
} as const satisfies Record<string, Patch>;

/**
 * Whether `patch` applies to this task. A task started for the patch's runtime revision or a
 * later one (TaskMemo.runtime, set by the server in the start event, so replay decides alike)
 * takes it with no marker: a marker is a history event, plus the SDK's TemporalChangeVersion
 * upsert, on every task, for a choice its start event already records. An older task asks
 * patched(): its history, recorded before the change, holds no such marker and replays the old
 * path. On replay the patch is still asked, so a marker that a worker of an older build wrote
 * for such a task is matched (asked during replay without one, patched() answers false and
 * emits nothing).
 */
export function applies(patch: Patch): boolean {
  if (taskRevision() < patch.revision) return patched(patch.id);
  if (workflowInfo().unsafe.isReplaying && patched(patch.id)) olderWorkerRan = true;
  return true;
}

/** A marker was met on replay: a worker that did not know the revision ran part of this run. */
let olderWorkerRan = false;

/** Revision 2 brought the lean end (see leanEnd). */
const LEAN_END_REVISION = 2;

/**
 * Whether this run may take revision 2's lean end (no progress write in the activation that
 * ends the task: nobody can read it). Not once an older worker ran part of the run: it wrote
 * that progress at the end, and replay must ask for the same. Progress pending at the end was
 * published, and such a worker's first publish left its flush-per-activation marker, which
 * replay meets at that same publish, before the end.
 */
export function leanEnd(): boolean {
  return taskRevision() >= LEAN_END_REVISION && !olderWorkerRan;
}

/** The runtime revision the task was started for (0: before TaskMemo.runtime existed). */
export function taskRevision(): number {
  return (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.runtime ?? 0;
}
