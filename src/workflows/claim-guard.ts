/**
 * A run whose caller gets its handle only after a bounded wait (a call from a client without
 * Tasks) is unreachable if its server dies during that wait: nobody holds the taskId. Such runs
 * are started with `claimWithinMs` in their memo; the server signals `mcp.claimed` before it
 * answers with the handle. Unclaimed past the deadline, the run cancels itself exactly as a
 * tasks/cancel would (its steps are undone, it ends cancelled).
 */
import { CancellationScope, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import { claimedSignal, TASK_MEMO_KEY, type TaskMemo } from '../contract';
import { applies, PATCHES } from './patches';

/** Arms the guard on the first run of a task that asks for it (a continued run was claimed or is unguarded). */
export function armClaimGuard(firstRun: boolean): void {
  const within = (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.claimWithinMs;
  if (!firstRun || typeof within !== 'number' || !applies(PATCHES.claimGuard)) return;
  let claimed = false;
  setHandler(claimedSignal, () => void (claimed = true));
  const root = CancellationScope.current();
  void CancellationScope.nonCancellable(() => condition(() => claimed, within)).then((inTime) => {
    if (!inTime && !claimed) root.cancel();
  });
}
