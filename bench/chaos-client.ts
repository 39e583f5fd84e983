/** Chaos's clients: each task created, answered and cancelled as its plan says, through the stack's restarts. */
import { type McpTasks, RpcError } from '../test/support/mcp-client';
import { sleep } from '../test/support/wait';
import type { Plan } from './chaos-plan';
import { type TaskRecord, TERMINAL } from './chaos-verdict';

/** Whether an error is the stack being down or restarting: the call is tried again. */
const transient = (err: unknown) => !(err instanceof RpcError) || err.code === -32603;

/** Retries `fn` through restarts until it answers, or rethrows a real error (or after `deadline`). */
async function retrying<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!transient(err) || Date.now() > deadline) throw err;
      await sleep(300);
    }
  }
}

/** One task's client: creates it (a failed create is tried again as a new task), answers it, cancels it. */
export async function driveTask(mcp: McpTasks, plan: Plan, t0: number, stats: { createRetries: number }): Promise<TaskRecord> {
  const record: TaskRecord = { ...plan, taskId: undefined, createdAt: undefined, cancel: undefined, answered: false, errors: [] };
  await sleep(t0 + plan.at - Date.now());
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const created = await mcp.createTask(plan.kind, plan.args);
      record.taskId = created.taskId;
      record.createdAt = Date.now();
      break;
    } catch (err) {
      if (!transient(err) || Date.now() > deadline) {
        record.errors.push(`create: ${(err as Error).message}`);
        return record;
      }
      stats.createRetries++; // the start may have landed anyway: the server cancels it if it lives
      await sleep(300);
    }
  }
  const jobs: Array<Promise<unknown>> = [];
  if (plan.answerAfterMs !== undefined)
    jobs.push(answer(mcp, record, deadline).catch((err: Error) => record.errors.push(`answer: ${err.message}`)));
  if (plan.cancelAfterMs !== undefined)
    jobs.push(cancel(mcp, record, deadline).catch((err: Error) => record.errors.push(`cancel: ${err.message}`)));
  await Promise.all(jobs);
  return record;
}

/** Waits until the task asks (input_required), then answers; again if the answer did not land. */
async function answer(mcp: McpTasks, record: TaskRecord, deadline: number): Promise<void> {
  await sleep(record.createdAt! + record.answerAfterMs! - Date.now());
  const response = { approval: { action: 'accept', content: { approved: record.approved } } };
  for (;;) {
    const task = await retrying(() => mcp.getTask(record.taskId!), deadline);
    if (TERMINAL.includes(task.status) || (record.answered && task.status === 'working')) return;
    if (task.status === 'input_required') {
      await retrying(() => mcp.updateTask(record.taskId!, response), deadline);
      record.answered = true;
    }
    if (Date.now() > deadline) throw new Error(`still ${task.status}`);
    await sleep(500);
  }
}

/**
 * Cancels at its moment; what the cancel reported is the cancel's answer when it carries a
 * status, else the first tasks/get after it (a tool that finished first reads completed).
 */
async function cancel(mcp: McpTasks, record: TaskRecord, deadline: number): Promise<void> {
  await sleep(record.createdAt! + record.cancelAfterMs! - Date.now());
  const answered = await retrying(() => mcp.cancelTask(record.taskId!), deadline);
  const reported =
    answered?._meta?.['mcp-temporal-tasks/cancel']?.status ?? (await retrying(() => mcp.getTask(record.taskId!), deadline)).status;
  record.cancel = { reported };
}
