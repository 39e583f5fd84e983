/**
 * The demo tools' workflows: each reads as the business process it runs. They are plain
 * workflow functions; McpTasksPlugin runs them as MCP tasks (progress, input, failures).
 */
import { ActivityCancellationType, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import {
  type CallToolResult,
  continueAsNewIfNeeded,
  elicit,
  MAX_RESULT_BYTES,
  protocolError,
  setStatusMessage,
  textResult,
  waitOrContinueAsNew,
  withCompensation,
} from 'mcp-temporal-tasks/workflow';
import type { z } from 'zod';
import type * as activities from './activities';
import type { approveExpenseInput, collectApprovalsInput, exportReportInput, provisionEnvironmentInput, waitAndEchoInput } from './api';

/** A durable timer, then the text back. Cancelling it mid-wait ends the task cancelled. */
export async function waitAndEcho({ text, seconds }: z.infer<typeof waitAndEchoInput>): Promise<CallToolResult> {
  setStatusMessage(`waiting ${seconds} s`);
  await sleep(seconds * 1000);
  return textResult(text);
}

/** One approval question to a human, by form elicitation; the answer decides the result. */
export async function approveExpense({ amount, description }: z.infer<typeof approveExpenseInput>): Promise<CallToolResult> {
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
    return textResult(
      `Expense of ${amount} not approved: the request was ${answer.action === 'decline' ? 'declined' : 'cancelled'}.`,
      true,
    );
  }
  const content = (answer.content ?? {}) as { approved?: boolean; comment?: string };
  const comment = content.comment ? ` Comment: ${content.comment}` : '';
  if (content.approved !== true) return textResult(`Expense of ${amount} for "${description}" was rejected.${comment}`, true);
  return textResult(`Expense of ${amount} for "${description}" was approved.${comment}`);
}

// A step in flight settles before its undo runs (the activity heartbeats, so a cancel reaches it quickly).
const { provisionStep } = proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '2 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '200 ms', maximumInterval: '5 seconds' },
});
// An undo that keeps failing ends the task failed (with the reason) instead of retrying forever.
const { deprovisionStep } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200 ms', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

const STEP_NAMES = ['network', 'database', 'compute', 'storage', 'dns', 'monitoring'];

/**
 * Provisions an environment step by step. A cancel at any moment undoes every step that took
 * effect, the one in flight included, newest first.
 */
export async function provisionEnvironment({
  name,
  steps = 3,
  stepMs = 1000,
}: z.infer<typeof provisionEnvironmentInput>): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  await withCompensation(async (undo) => {
    for (let step = 1; step <= steps; step++) {
      const what = STEP_NAMES[(step - 1) % STEP_NAMES.length];
      const idempotencyKey = `${taskId}:step-${step}`;
      setStatusMessage(`step ${step}/${steps}: provisioning ${what} for ${name}`);
      await undo.step(
        () => provisionStep({ idempotencyKey, environment: name, step, steps, what, durationMs: stepMs }),
        () => deprovisionStep({ idempotencyKey, environment: name, step }),
      );
    }
  });
  setStatusMessage(`environment ${name} ready`);
  return textResult(`Environment ${name} provisioned in ${steps} steps.`);
}

type CollectApprovalsArgs = z.infer<typeof collectApprovalsInput> & {
  /** Where a continued run picks up: the approver being asked, and the answers so far. */
  next?: number;
  approved?: string[];
};

/**
 * Sequential sign-off by several approvers; it can run for weeks, so it continues as new when
 * its history grows long, or when a deploy makes a new build its target (Worker Versioning,
 * PINNED). The pending question survives that, under the same taskId.
 */
export async function collectApprovals({ approvers, next = 0, approved = [] }: CollectApprovalsArgs): Promise<CallToolResult> {
  for (let i = next; i < approvers.length; i++) {
    setStatusMessage(`waiting for ${approvers[i]} (${i + 1}/${approvers.length})`);
    const answer = elicit(`approval-${i}`, `${approvers[i]}, do you approve?`, {
      type: 'object',
      properties: { approved: { type: 'boolean' } },
      required: ['approved'],
    });
    const carry: CollectApprovalsArgs = { approvers, next: i, approved };
    await continueAsNewIfNeeded(carry);
    // a pinned task moves to a new build while it waits, as soon as something wakes it
    const { action, content } = await waitOrContinueAsNew(answer, carry);
    if (action !== 'accept' || (content as { approved?: boolean } | undefined)?.approved !== true) {
      return textResult(`Not approved: ${approvers[i]} declined after ${approved.length} approval(s).`, true);
    }
    approved = [...approved, approvers[i]];
  }
  return textResult(`Approved by all ${approved.length}: ${approved.join(', ')}.`);
}

// Long work in an activity: it reports "exporting rows (4,000 of 10,000)" as the task's
// statusMessage, and heartbeats so a cancel (or a lost worker) reaches it within seconds.
// the SDK sends heartbeats (the progress) at most every 80% of heartbeatTimeout: every 1.6 s here
const EXPORT_OPTIONS = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;
const { buildReport } = proxyActivities<typeof activities>(EXPORT_OPTIONS);

/** Tasks started before the CSV moved into an activity replay the inline build (test/histories/). */
export const EXPORT_IN_ACTIVITY = 'demo.export-report-in-activity';

/** Exports a CSV report. Past the payload limit the task fails clearly. */
export async function exportReport({ rows, msPerChunk }: z.infer<typeof exportReportInput>): Promise<CallToolResult> {
  setStatusMessage(`exporting ${rows} rows`);
  if (!patched(EXPORT_IN_ACTIVITY)) return { content: [{ type: 'text', text: csvInline(rows) }] };
  // the summary names the activity in the Temporal UI, beside its heartbeat details (the progress)
  const report = await buildReport.executeWithOptions({ ...EXPORT_OPTIONS, summary: `CSV export, ${rows} rows` }, [{ rows, msPerChunk }]);
  if ('oversizedBytes' in report) {
    // the runtime's own error for an oversized result: the report could not travel as one
    const bytes = report.oversizedBytes;
    throw protocolError(-32603, `The tool's result is ${bytes} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`, {
      resultBytes: bytes,
      limitBytes: MAX_RESULT_BYTES,
    });
  }
  return { content: [{ type: 'text', text: report.csv }] };
}

/** The build as it ran in the workflow before EXPORT_IN_ACTIVITY. */
function csvInline(rows: number): string {
  const lines = ['id,name,amount'];
  for (let i = 1; i <= rows; i++) lines.push(`${i},item-${i},${(i * 7) % 1000}.00`);
  return lines.join('\n');
}
