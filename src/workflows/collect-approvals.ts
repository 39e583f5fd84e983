import { continueAsNewIfNeeded, requestInput, setStatusMessage, textResult } from './task-runtime';
import type { CallToolResult, ElicitResult, InputRequest } from './task-types';

export interface CollectApprovalsArgs {
  approvers: string[];
  /** Where a continued run picks up: the approver being asked, and the answers so far. */
  next?: number;
  approved?: string[];
}

/**
 * Sequential sign-off by several approvers; it can run for weeks, so it continues as new when
 * its history grows long. The pending question survives that, under the same taskId.
 */
export async function collectApprovals({ approvers, next = 0, approved = [] }: CollectApprovalsArgs): Promise<CallToolResult> {
  for (let i = next; i < approvers.length; i++) {
    setStatusMessage(`waiting for ${approvers[i]} (${i + 1}/${approvers.length})`);
    const answer = requestInput<ElicitResult>(`approval-${i}`, question(approvers[i]));
    await continueAsNewIfNeeded<CollectApprovalsArgs>({ approvers, next: i, approved });
    const { action, content } = await answer;
    if (action !== 'accept' || (content as { approved?: boolean } | undefined)?.approved !== true) {
      return textResult(`Not approved: ${approvers[i]} declined after ${approved.length} approval(s).`, true);
    }
    approved = [...approved, approvers[i]];
  }
  return textResult(`Approved by all ${approved.length}: ${approved.join(', ')}.`);
}

function question(approver: string): InputRequest {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: `${approver}, do you approve?`,
      requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
    },
  } as InputRequest;
}
