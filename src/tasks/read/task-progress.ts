/** A running task's progress as tasks/get reads it: the workflow's memo, and answers it has not run yet. */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { inputResponsesSignal, PROGRESS_MEMO_KEY, type TaskProgress } from '../../contract';
import type { Bounded } from '../temporal-calls';

/** Events read back from a history's end for answers not yet applied (a few signals at most). */
const ANSWERS_PAGE = 50;

/**
 * The memo is current, except for answers recorded since the workflow last ran (a workflow
 * task pending, e.g. no worker yet): those are read from the end of the history and applied to
 * the memo's view, so a tasks/get right after a tasks/update sees it without asking a worker.
 */
export async function readProgress(client: Client, bounded: Bounded, description: WorkflowExecutionDescription): Promise<TaskProgress> {
  const memo = description.memo?.[PROGRESS_MEMO_KEY] as TaskProgress | undefined;
  const progress: TaskProgress = memo ?? { status: 'working', lastUpdatedAt: description.startTime.toISOString(), inputRequests: {} };
  if (!description.raw.pendingWorkflowTask || progress.status !== 'input_required') return progress;
  const answered = await answersNotYetApplied(client, bounded, description);
  if (answered.size === 0) return progress;
  const inputRequests = Object.fromEntries(Object.entries(progress.inputRequests).filter(([key]) => !answered.has(key)));
  return { ...progress, status: Object.keys(inputRequests).length > 0 ? 'input_required' : 'working', inputRequests };
}

/**
 * The keys answered by tasks/update signals the workflow had not run yet when it was described
 * (as of its history length then; a workflow task that completed since wrote a newer memo than
 * the one in hand, so its events are skipped, not taken as the end).
 */
async function answersNotYetApplied(client: Client, bounded: Bounded, description: WorkflowExecutionDescription): Promise<Set<string>> {
  const { history } = await bounded(() =>
    client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: ANSWERS_PAGE,
    }),
  );
  const keys = new Set<string>();
  for (const event of history?.events ?? []) {
    if (Number(event.eventId) > description.historyLength) continue;
    if (event.workflowTaskCompletedEventAttributes) break; // the workflow has seen everything before
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== inputResponsesSignal.name) continue;
    const answers = await decodeFromPayloadsAtIndex<Record<string, unknown>>(client.options.loadedDataConverter, 0, signal.input?.payloads);
    for (const key of Object.keys(answers ?? {})) keys.add(key);
  }
  return keys;
}
