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
