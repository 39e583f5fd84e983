import { elicit, setStatusMessage, textResult } from './task-runtime';
import type { CallToolResult } from './task-types';

export interface ApproveExpenseArgs {
  amount: number;
  description: string;
}

/** One approval question to a human, by form elicitation; the answer decides the result. */
export async function approveExpense({ amount, description }: ApproveExpenseArgs): Promise<CallToolResult> {
  setStatusMessage('waiting for approval');
  const answer = await elicit('approval', `Approve the expense of ${amount} for "${description}"?`, {
    type: 'object',
    properties: {
      approved: { type: 'boolean', title: 'Approved', description: 'Approve this expense' },
      comment: { type: 'string', title: 'Comment' },
    },
    required: ['approved'],
  });
  if (answer.action !== 'accept') {
    return textResult(`Expense of ${amount} not approved: the request was ${answer.action === 'decline' ? 'declined' : 'cancelled'}.`, true);
  }
  const content = (answer.content ?? {}) as { approved?: boolean; comment?: string };
  const comment = content.comment ? ` Comment: ${content.comment}` : '';
  if (content.approved !== true) return textResult(`Expense of ${amount} for "${description}" was rejected.${comment}`, true);
  return textResult(`Expense of ${amount} for "${description}" was approved.${comment}`);
}
