/**
 * Who cancelled: Temporal's cancel request (tasks/cancel), the claim guard, or the tool's own
 * scope. The SDK shows all three as the same cancellation; the task's end differs (end.ts).
 */
import { CancellationScope } from '@temporalio/workflow';
import { claimGuardFired, unclaimedMessage } from './claim-guard';

/** The workflow's root scope: cancelled once Temporal delivered a cancel request, or by the claim guard. */
let taskScope: CancellationScope | undefined;

export function rememberTaskScope(): void {
  taskScope = CancellationScope.current();
}

/** The task's root scope was cancelled (a cancel request, or the claim guard): the tool must not complete. */
export function endRequested(): boolean {
  return taskScope?.consideredCancelled === true;
}

/** Temporal delivered a cancel request (tasks/cancel); the claim guard's own cancel is not one. */
export function cancelRequested(): boolean {
  return endRequested() && !claimGuardFired();
}

/** What a cancellation the task sees came from, in words. */
export function cancellationOrigin(): string {
  if (claimGuardFired()) return unclaimedMessage();
  if (cancelRequested()) return 'a cancel';
  return `the tool's own cancellation scope was cancelled (a timeout), not tasks/cancel`;
}
