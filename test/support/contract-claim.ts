/**
 * The claim guard, as every language's helper must honour it (docs/contract.md, "The claim
 * guard"): a run started with `mcpTask.claimWithinMs` that no `mcp.claimed` signal reaches in
 * time undoes its steps and ends FAILED with type McpTaskUnclaimed. The run is started as a call
 * from a client without Tasks does (TemporalTaskStore.start with claimWithinMs), and nobody
 * claims it: its server died before it answered with the handle.
 *
 * The races: a claim, an answer or a cancel recorded while no worker runs, just before the
 * deadline, reaches the next worker in the same workflow task as the deadline. The claim wins,
 * the cancel wins, the answer does not (the guard wins over it), in every language.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { TemporalTaskStore } from '../../src/tasks';
import { toolsFromFile } from '../../src/mcp/workflow-tools';
import { claimHistory, completedBetween, EventType, type HistoryEvent, signalNamed } from './claim-history';
import { call } from './mcp';
import type { Stack } from './stack';
import { waitFor } from './wait';

/** What each language's contract suite hands the tests kept in modules of their own. */
export interface ContractSuiteContext {
  lang: string;
  toolsFile: string;
  provision: string;
  stack: Stack;
  url: () => string;
  stepsOf: (taskId: string) => unknown[][];
  closed: (taskId: string) => Promise<WorkflowExecutionDescription>;
}

const CLAIM_WITHIN_MS = 2_500;

/** Starts `name` (a tool of the file) as a call from a client without Tasks does: unclaimed, guarded for `claimWithinMs`. */
async function startUnclaimed(stack: Stack, toolsFile: string, name: string, args: Record<string, unknown>, claimWithinMs: number) {
  const tool = toolsFromFile(toolsFile).find((t) => t.name === name)!;
  const store = new TemporalTaskStore(stack.temporal.client, {
    taskQueue: tool.taskQueue!,
    ttlMs: 60 * 60_000,
    temporalTimeoutMs: 10_000,
    historyLimit: 10_000,
    searchAttributes: true,
  });
  const { taskId } = await store.start({
    tool: name,
    workflowType: tool.workflowType!,
    taskQueue: tool.taskQueue,
    arguments: args,
    summary: `unclaimed ${name}`,
    claimWithinMs,
  });
  return { store, taskId };
}

export function claimGuardTest({ lang, toolsFile, provision, stack, url, stepsOf, closed }: ContractSuiteContext): void {
  test(`a ${lang} task nobody claimed in time (its caller never got the handle): every step undone, newest first, failed McpTaskUnclaimed`, async () => {
    const args = { name: 'unclaimed', steps: 6, stepSeconds: 1 };
    const { taskId } = await startUnclaimed(stack, toolsFile, provision, args, CLAIM_WITHIN_MS);
    const described = await closed(taskId);
    expect(described.status.name).toBe('FAILED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['failed']);
    const failure = (await stack.temporal.client.workflow.getHandle(taskId).fetchHistory()).events!.at(-1)!
      .workflowExecutionFailedEventAttributes!.failure!;
    expect(failure.applicationFailureInfo?.type).toBe('McpTaskUnclaimed');
    const message = `nobody claimed the task within ${CLAIM_WITHIN_MS}ms (its caller never got the handle): steps undone`;
    expect(failure.message).toBe(message);
    const task = await call(url(), 'tasks/get', { taskId });
    // as any tool failure that is not a protocol error (src/tasks/task-outcome.ts)
    expect(task).toMatchObject({ status: 'failed', error: { message: `The task failed: ${message}` } });
    // the guard fired mid-run: the steps done so far, each undone, newest first, and none after
    const steps = stepsOf(taskId) as Array<[string, number, boolean | undefined]>;
    const provisioned = steps.filter(([event]) => event === 'provision').map(([, step]) => step);
    const undone = steps.filter(([event, , applied]) => event === 'deprovision' && applied).map(([, step]) => step);
    expect(provisioned.length).toBeGreaterThan(0);
    expect(provisioned.length).toBeLessThan(6);
    expect(undone).toEqual([...provisioned].reverse());
    expect(steps.findIndex(([event]) => event === 'deprovision')).toBeGreaterThan(steps.map(([event]) => event).lastIndexOf('provision'));
  });
}

/** Long enough for the approval's first step and question; the race is staged after them. */
const RACE_CLAIM_WITHIN_MS = 5_000;

type Race = 'claim' | 'answer' | 'cancel';

export interface ClaimRaceContext extends ContractSuiteContext {
  approve: string;
  eventsOf: (taskId: string) => string[];
  /** SIGKILLs the suite's worker, runs `whileDown`, then starts another on the same ledger. */
  killWorker: (whileDown?: () => Promise<void>) => Promise<void>;
}

export function claimRaceTests({ lang, toolsFile, approve, stack, url, eventsOf, closed, killWorker }: ClaimRaceContext): void {
  const { deadlinePassed } = claimHistory(() => stack.temporal.client, RACE_CLAIM_WITHIN_MS);
  const recordedIn = (race: Race, events: HistoryEvent[]) =>
    race === 'cancel'
      ? events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED)
      : signalNamed(events, race === 'claim' ? 'mcp.claimed' : 'mcp.inputResponses');
  const endOf = async (taskId: string) => {
    const described = await closed(taskId);
    const task = await call(url(), 'tasks/get', { taskId });
    return { temporal: described.status.name, mcpTaskStatus: described.searchAttributes.McpTaskStatus, task, ledger: eventsOf(taskId) };
  };
  const approval = { approval: { action: 'accept', content: { approved: true, comment: 'racing the deadline' } } };

  test.each<[Race, string]>([
    ['claim', 'the claim wins: the task goes on, answered, completed'],
    ['answer', 'the guard wins over the answer: failed McpTaskUnclaimed, the slot released, nothing deployed'],
    ['cancel', 'the cancel wins: cancelled, the slot released'],
  ])(
    `a ${lang} worker SIGKILLed while an unclaimed task waits for input, the %s recorded with no worker before the deadline, one workflow task gets both: %s`,
    async (race) => {
      const { store, taskId } = await startUnclaimed(
        stack,
        toolsFile,
        approve,
        { service: `race-${race}`, version: '1.0' },
        RACE_CLAIM_WITHIN_MS,
      );
      await waitFor(
        async () => ((await store.read(taskId))?.state.status === 'input_required' ? true : undefined),
        30_000,
        100,
        'input_required',
      );
      await killWorker(async () => {
        if (race === 'claim') await store.claim(taskId);
        else if (race === 'answer') await store.sendInput(taskId, undefined, approval);
        else await store.cancel(taskId);
        const { fired, events } = await deadlinePassed(taskId);
        const recorded = recordedIn(race, events);
        expect(recorded).toBeDefined();
        expect(Number(recorded!.eventId)).toBeLessThan(Number(fired.eventId));
        expect(completedBetween(events, recorded!, fired)).toEqual([]); // the next worker's first workflow task holds both
      });
      if (race === 'claim') {
        await waitFor(
          async () => ((await store.read(taskId))?.state.status === 'input_required' ? true : undefined),
          30_000,
          100,
          'claimed, still asking',
        );
        await store.sendInput(taskId, undefined, approval);
      }
      const end = await endOf(taskId);
      if (race === 'claim') {
        expect(end).toMatchObject({
          temporal: 'COMPLETED',
          mcpTaskStatus: ['completed'],
          task: { status: 'completed' },
          ledger: ['reserve', 'deploy'],
        });
      } else if (race === 'answer') {
        expect(end).toMatchObject({
          temporal: 'FAILED',
          mcpTaskStatus: ['failed'],
          task: { status: 'failed', error: { message: expect.stringMatching(/nobody claimed the task within 5000ms/) } },
          ledger: ['reserve', 'release'],
        });
      } else {
        expect(end).toMatchObject({
          temporal: 'CANCELLED',
          mcpTaskStatus: ['cancelled'],
          task: { status: 'cancelled' },
          ledger: ['reserve', 'release'],
        });
      }
    },
    120_000,
  );
}
