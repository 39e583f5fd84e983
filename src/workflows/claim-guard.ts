/**
 * A run whose caller gets its handle only after a bounded wait (a call from a client without
 * Tasks) is unreachable if its server dies during that wait: nobody holds the taskId. Such runs
 * are started with `claimWithinMs` in their memo; the server signals `mcp.claimed` before it
 * answers with the handle. Unclaimed past the deadline, the guard cancels the task's root scope
 * (what the tool is waiting on stops), every registered undo runs and the task ends failed
 * (src/workflows/end.ts). The deadline is absolute: an unclaimed chain that continues as new
 * carries it (RuntimeCarry.claimDeadline), so the next run ends at the same moment.
 */
import { CancellationScope, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import { claimedSignal, TASK_MEMO_KEY, type TaskMemo } from '../contract';
import { applies, PATCHES } from './patches';

interface Guard {
  /** Workflow time (ms since the epoch) by which the claim must arrive. */
  deadline: number;
  withinMs: number;
  claimed: boolean;
  /** The deadline passed unclaimed and the guard cancelled the task. */
  fired: boolean;
}

let guard: Guard | undefined;

/**
 * Arms the guard on a run of a task that asks for it: the first run, or a continued run of an
 * unclaimed chain (`carriedDeadline`); a continued run without one was claimed or is unguarded.
 */
export function armClaimGuard(firstRun: boolean, carriedDeadline?: number): void {
  const within = (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.claimWithinMs;
  if (typeof within !== 'number') return;
  if (firstRun ? !applies(PATCHES.claimGuard) : carriedDeadline === undefined || !applies(PATCHES.claimAcrossRuns)) return;
  const g: Guard = { deadline: carriedDeadline ?? Date.now() + within, withinMs: within, claimed: false, fired: false };
  guard = g;
  setHandler(claimedSignal, () => void (g.claimed = true));
  const root = CancellationScope.current();
  const remaining = g.deadline - Date.now();
  const inTime =
    remaining > 0
      ? CancellationScope.nonCancellable(() => condition(() => g.claimed, firstRun ? within : remaining))
      : Promise.resolve(false);
  void inTime.then((claimedInTime) => {
    // a cancel Temporal delivered first is the task's end: the guard does not take it over
    if (claimedInTime || g.claimed || root.consideredCancelled) return;
    g.fired = true;
    root.cancel();
  });
}

/** The guard ended the task: nobody claimed it in time. */
export function claimGuardFired(): boolean {
  return guard?.fired === true;
}

/** The failure an unclaimed task ends with (after its undos ran). */
export function unclaimedMessage(): string {
  return `nobody claimed the task within ${guard?.withinMs}ms (its caller never got the handle)`;
}

/** What a continue-as-new hands on: the deadline of a guard still waiting for its claim. */
export function unclaimedDeadline(): number | undefined {
  return guard && !guard.claimed && !guard.fired ? guard.deadline : undefined;
}
