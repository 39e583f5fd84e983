/**
 * Continue-as-new for long tasks: the history stays bounded under the same workflow id (= the
 * taskId), and the runtime's state (progress, answers, used keys, undos, the claim deadline)
 * travels to the next run as its second argument (RuntimeCarry).
 */
import { CancelledFailure, condition, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import { type CallToolResult, TASK_MEMO_KEY, type TaskMemo } from '../contract';
import { endRequested } from './cancel-origin';
import { unclaimedDeadline } from './claim-guard';
import { carrySteps, checkCarriable } from './compensation';
import { applies, PATCHES } from './patches';
import { flushProgress, isPending, runtime, type RuntimeCarry } from './runtime';

/**
 * Long processes call this between steps: when the history grows past the task's limit (or a
 * new build became the target of a pinned chain), the workflow continues as new under the same
 * workflow id (= taskId) with `nextArgs`, carrying statusMessage, pending input requests,
 * unconsumed answers and the undos registered so far. A cancel requested before that ends the
 * task instead (cancelled, every step undone): it must not be lost at the hand-over.
 */
export async function continueAsNewIfNeeded<A>(nextArgs: A): Promise<void> {
  const info = workflowInfo();
  const limit = (info.memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  if (info.historyLength < limit && !info.continueAsNewSuggested && !targetChanged()) return;
  await continueAsNewNow(nextArgs);
}

/**
 * Waits for `pending` (an input request made before, e.g. `elicit(...)`) and returns what it
 * gives. If meanwhile a new build becomes the target of this pinned task (Worker Versioning),
 * the task continues as new with `nextArgs` as soon as the server tells it, that is as soon as
 * anything wakes the workflow (an answer to another request, a timer, an operator's nudge: a
 * `mcp.inputResponses` signal with `{}`): the pending requests are carried, and the next run, on
 * the new build, waits for the same answers. `nextArgs` must make the next run ask the same keys
 * again, like for continueAsNewIfNeeded. An answer that arrives in the same activation wins: the
 * tool gets it here and moves at its next continueAsNewIfNeeded.
 */
export async function waitOrContinueAsNew<T, A>(pending: Promise<T>, nextArgs: A): Promise<T> {
  const s = runtime();
  let outcome: { value: T } | { error: unknown } | undefined;
  pending.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  // an answer to an outstanding request not yet taken by its requestInputs: let it through first
  const answerArriving = () => [...s.responses.keys()].some((k) => isPending(s, k));
  await condition(() => outcome !== undefined || (targetChanged() && !answerArriving()));
  if (outcome === undefined) {
    if (applies(PATCHES.upgradeWhileWaiting)) await continueAsNewNow(nextArgs);
    await condition(() => outcome !== undefined);
  }
  const done = outcome as { value: T } | { error: unknown };
  if ('error' in done) throw done.error;
  return done.value;
}

/** The server says a new build is the target of this pinned run (always false when unversioned or AUTO_UPGRADE). */
function targetChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}

async function continueAsNewNow<A>(nextArgs: A): Promise<void> {
  const upgrade = targetChanged();
  if (endRequested() && applies(PATCHES.lateCancel)) throw new CancelledFailure('cancelled before continuing as new');
  flushProgress();
  const s = runtime();
  const steps = carrySteps();
  const claimDeadline = unclaimedDeadline();
  const carry: RuntimeCarry = {
    progress: s.progress,
    responses: Object.fromEntries(s.responses),
    usedKeys: [...s.usedKeys],
    ...(steps.length ? { steps } : {}),
    ...(claimDeadline !== undefined && applies(PATCHES.claimAcrossRuns) ? { claimDeadline } : {}),
  };
  // memo (task metadata, progress) and search attributes go along explicitly, read AFTER the
  // flush: `info` above predates it, and the next run would start from stale progress
  const flushed = workflowInfo();
  const next = makeContinueAsNewFunc<(args: A, carry: RuntimeCarry) => Promise<CallToolResult>>({
    memo: flushed.memo,
    typedSearchAttributes: flushed.typedSearchAttributes,
    // a pinned chain moves to the build its deployment now targets (Worker Versioning)
    ...(upgrade ? { initialVersioningBehavior: 'AUTO_UPGRADE' as const } : {}),
  });
  await next(nextArgs, carry);
}

/** One turn of a `loop`: go on from `next`, or finish with `done`. */
export type LoopTurn<S, R> = { next: S } | { done: R };

/**
 * A long loop that keeps its history bounded by itself: `step` runs one turn from a state and
 * says how to go on; between turns the workflow continues as new when its history is long,
 * with the same args plus `resume` (the state to go on from), under the same taskId.
 */
export async function loop<A extends object, S, R>(
  args: A & { resume?: S },
  first: S,
  step: (state: S) => Promise<LoopTurn<S, R>>,
): Promise<R> {
  for (let state = args.resume ?? first; ;) {
    const turn = await step(state);
    if ('done' in turn) return turn.done;
    // an undo that could not travel is refused at the first turn, not at the first continue-as-new;
    // not once the task must end (a cancel): the next turn's first await ends it, undone
    if (!endRequested()) checkCarriable();
    state = turn.next;
    await continueAsNewIfNeeded({ ...args, resume: state });
  }
}

/** Inside Temporal's safe zone (it warns at 10,240 events and terminates at 51,200). */
const DEFAULT_HISTORY_LIMIT = 5_000;
