/**
 * The end of a task, decided once. Every reader derives from this one decision: the value the
 * workflow throws (hence Temporal's close status), McpTaskStatus and the final details in the
 * Temporal UI (docs/contract.md, "The end of a task"):
 *
 * | what happened                                          | Temporal   | McpTaskStatus |
 * | the tool returned                                      | COMPLETED  | completed     |
 * | tasks/cancel (Temporal delivered a cancel), undos ran  | CANCELED   | cancelled     |
 * | an undo failed, a Temporal failure, the tool's own      | FAILED     | failed        |
 * |   cancellation (a scope timeout), the claim guard       |            |               |
 *
 * The SDK closes a workflow CANCELED only when a cancel request arrived and the workflow throws
 * a cancellation; a cancellation the workflow's own code caused would close FAILED, so it ends
 * failed everywhere, naming what cancelled. A bug (a plain Error) is no end: the workflow task
 * fails and is retried until a fixed build runs it.
 */
import { ApplicationFailure, CancelledFailure, isCancellation, TemporalFailure } from '@temporalio/workflow';
import { cancellationOrigin, cancelRequested, endRequested } from './cancel-origin';
import { MCP_TASK_UNCLAIMED } from '../contract';
import { claimGuardFired, unclaimedMessage } from './claim-guard';
import { compensate, isUndoFailure, reasonOf } from './compensation';
import { applies, PATCHES } from './patches';

export type TaskEnd =
  | { status: 'completed'; result: unknown }
  | { status: 'cancelled' | 'failed'; failure: unknown }
  /** Not an end: the workflow task fails with it (retried). */
  | { status: 'bug'; error: unknown };

/** How the task ends, given what the tool threw (or the CancelledFailure of a cancel it outlived). */
export async function decideEnd(err: unknown): Promise<TaskEnd> {
  const outcome = err instanceof TemporalFailure || isCancellation(err);
  if (!outcome || !applies(PATCHES.oneEnd)) return legacyEnd(err);
  if (claimGuardFired() || cancelRequested()) {
    // undos that failed already (withCompensation ran them): that failure is the end
    if (isUndoFailure(err)) return { status: 'failed', failure: err };
    if (claimGuardFired()) return undoThen('failed', unclaimedFailure(), new Error(unclaimedMessage()));
    return undoThen('cancelled', isCancellation(err) ? err : new CancelledFailure('cancelled'), err);
  }
  if (isCancellation(err)) return { status: 'failed', failure: ownCancellation(err) };
  return { status: 'failed', failure: err };
}

/** Runs every undo still registered, then ends as decided; an undo that fails ends it failed with its reasons. */
async function undoThen(status: 'cancelled' | 'failed', failure: unknown, cause: unknown): Promise<TaskEnd> {
  try {
    await compensate(cause);
  } catch (undoFailure) {
    return { status: 'failed', failure: undoFailure };
  }
  return { status, failure };
}

function unclaimedFailure(): ApplicationFailure {
  return ApplicationFailure.create({ type: MCP_TASK_UNCLAIMED, message: `${unclaimedMessage()}: steps undone`, nonRetryable: true });
}

/** A cancellation nobody requested (a CancellationScope.withTimeout that fired, an inner scope cancelled): the tool's own failure. */
function ownCancellation(err: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'ToolCancellation',
    message: `${cancellationOrigin()}: ${reasonOf(err)}`,
    nonRetryable: true,
    ...(err instanceof TemporalFailure ? { cause: err } : {}),
  });
}

/**
 * The end of tasks before PATCHES.oneEnd (their histories replay it): any cancellation ran the
 * undos and recorded `cancelled`, whoever cancelled.
 */
async function legacyEnd(err: unknown): Promise<TaskEnd> {
  let end = err;
  // a tool that failed while a cancel was pending ends cancelled too, once its steps are undone
  const cancelled =
    isCancellation(err) || (err instanceof TemporalFailure && !isUndoFailure(err) && endRequested() && applies(PATCHES.lateCancel));
  if (cancelled)
    end = await compensate(err).then(
      () => (isCancellation(err) ? err : new CancelledFailure('cancelled')),
      (failure: unknown) => failure,
    );
  const failure = asWorkflowFailure(end);
  if (!(failure instanceof TemporalFailure)) return { status: 'bug', error: failure };
  return { status: isCancellation(failure) ? 'cancelled' : 'failed', failure };
}

/**
 * Temporal failures (cancellation, activity and child failures, protocolError, a failed undo)
 * pass as they are and end the task. Anything else is a bug in workflow code (a TypeError, the
 * SDK's determinism errors): it fails the workflow task, which Temporal retries, so a deploy that
 * fixes it resumes the task; tasks/get shows such a task as stuck, with the error. (Builds before
 * PATCHES.bugsRetry failed the task instead, and replay keeps that for their tasks.)
 */
function asWorkflowFailure(err: unknown): unknown {
  if (err instanceof TemporalFailure || isCancellation(err)) return err;
  if (applies(PATCHES.bugsRetry)) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.create({ type: e.name, message: `${e.name}: ${e.message}`, nonRetryable: true });
}
