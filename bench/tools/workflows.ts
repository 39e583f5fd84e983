/** The benches' worker runs the demo workflows, the raw baseline and bench:follow's provision beside them. */
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import { type CallToolResult, elicit, setStatusMessage, textResult } from 'mcp-temporal-tasks/workflow';
import type * as demoActivities from '../../examples/demo/activities';

export * from '../../examples/demo/workflows';

/**
 * Not a tool: the demo's waitAndEcho without the task runtime (no status message, no progress,
 * no task status), the raw Temporal baseline of the benches (bench/peer, bench:raw, raw-batch).
 */
export async function plainTimer({ text, seconds }: { text: string; seconds: number }): Promise<string> {
  await sleep(seconds * 1000);
  return text;
}

const { provisionStep } = proxyActivities<typeof demoActivities>({ startToCloseTimeout: '1 hour', heartbeatTimeout: '2 seconds' });

/**
 * bench:follow's provision: `steps` steps of `stepMs` (the demo's provisionStep, which reports
 * its progress), with one approval asked after step `approvalAfter`; declined, it stops there.
 */
export async function provisionWithApproval({
  name,
  steps,
  stepMs,
  approvalAfter,
}: {
  name: string;
  steps: number;
  stepMs: number;
  approvalAfter: number;
}): Promise<CallToolResult> {
  const taskId = workflowInfo().workflowId;
  for (let step = 1; step <= steps; step++) {
    if (step === approvalAfter + 1) {
      setStatusMessage(`waiting for approval to go on with ${name}`);
      const answer = await elicit('go_on', `${approvalAfter} of ${steps} steps of ${name} are done. Go on with the rest?`, {
        type: 'object',
        properties: { approved: { type: 'boolean', title: 'Go on' } },
        required: ['approved'],
      });
      if (answer.action !== 'accept' || (answer.content as { approved?: boolean })?.approved !== true)
        return textResult(`Provisioning of ${name} stopped after ${approvalAfter} steps.`, true);
    }
    setStatusMessage(`step ${step}/${steps}: provisioning ${name}`);
    await provisionStep({ idempotencyKey: `${taskId}:step-${step}`, environment: name, step, steps, what: 'step', durationMs: stepMs });
  }
  return textResult(`Environment ${name} provisioned in ${steps} steps.`);
}
