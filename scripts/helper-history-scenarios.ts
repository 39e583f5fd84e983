/**
 * The scenarios scripts/record-helper-histories.ts records with a language's example tools (Go,
 * Java: `provision_<lang>`, `approve_deployment_<lang>` on the queue `<lang>-tools`): each starts
 * a task (over MCP, or as the server starts a call of a client without Tasks), drives it and says
 * how it must close.
 */
import type { Client } from '@temporalio/client';
import type { TemporalTaskStore } from '../dist/tasks';
import type { McpTasks } from '../test/support/mcp-client';
import { waitFor } from '../test/support/wait';

const CLAIM_WITHIN_MS = 2_500;
const ANSWER_WITHIN_MS = 3_000;

export type Lang = 'go' | 'java';
export const queueOf = (lang: Lang) => `${lang}-tools`;

export interface Drive {
  mcp: McpTasks;
  client: Client;
  store: TemporalTaskStore;
}

export interface Scenario {
  name: string;
  about: string;
  tool: string;
  /** Extra flags of the `serve` the scenario talks to (a serve of its own); default: the shared one. */
  serveArgs?: string[];
  /** Starts the task and drives it; resolves with its workflow id. */
  run: (d: Drive) => Promise<string>;
  /** How the last run closes: completed, canceled or failed (Temporal's close). */
  closes: string;
  /** How it closes when the helper's claim guard ran in it (a version marker in the history). */
  closesGuarded?: string;
  minRuns?: number;
}

/** tools/call as a task. */
async function task(mcp: McpTasks, tool: string, args: Record<string, unknown>): Promise<string> {
  const created = await mcp.createTask(tool, args);
  return created.taskId as string;
}

/** Started as the server starts a call of a client without Tasks: the run guards its claim. */
async function startUnclaimed(lang: Lang, store: TemporalTaskStore, args: Record<string, unknown>): Promise<string> {
  const { taskId } = await store.start({
    tool: `provision_${lang}`,
    workflowType: 'ProvisionWorkflow',
    taskQueue: queueOf(lang),
    arguments: args,
    summary: `provision_${lang} ${String(args.name)}`,
    claimWithinMs: CLAIM_WITHIN_MS,
  });
  return taskId;
}

/** The statusMessage the helper published in the memo (mcpProgress), once it matches. */
const progressed = (client: Client, taskId: string, message: RegExp) =>
  waitFor(
    async () => {
      const memo = (await client.workflow.getHandle(taskId).describe()).memo as any;
      return message.test(memo?.mcpProgress?.statusMessage ?? '') ? true : undefined;
    },
    30_000,
    100,
    `${taskId}: no statusMessage ${message}`,
  );

/** The scenarios with `lang`'s example tools. */
export function scenariosFor(lang: Lang): Scenario[] {
  const provision = `provision_${lang}`;
  const approve = `approve_deployment_${lang}`;
  return [
    {
      name: 'provision-completed',
      about: `${provision}: 2 steps, completed`,
      tool: provision,
      run: ({ mcp }) => task(mcp, provision, { name: 'done', steps: 2, stepSeconds: 0 }),
      closes: 'completed',
    },
    {
      name: 'provision-cancelled',
      about: `${provision}: tasks/cancel during step 2's activity, both steps undone, cancelled`,
      tool: provision,
      run: async ({ mcp }) => {
        const taskId = await task(mcp, provision, { name: 'staging', steps: 3, stepSeconds: 2 });
        await mcp.waitForTask(taskId, (t) => /^step 2/.test(t.statusMessage ?? ''));
        await mcp.cancelTask(taskId);
        return taskId;
      },
      closes: 'canceled',
    },
    {
      name: 'provision-cancelled-last-step',
      about: `${provision}: tasks/cancel during the last step's activity (step 2 of 2), both steps undone, cancelled`,
      tool: provision,
      run: async ({ mcp }) => {
        const taskId = await task(mcp, provision, { name: 'last', steps: 2, stepSeconds: 2 });
        // the workflow's "step 2/2: …", then the activity's own "step 2: … (n of 100)"
        await mcp.waitForTask(taskId, (t) => /^step 2\b/.test(t.statusMessage ?? ''));
        await mcp.cancelTask(taskId);
        return taskId;
      },
      closes: 'canceled',
    },
    {
      name: 'provision-failed',
      about: `${provision}: step 3 fails, steps undone newest first, the undo of step 1 refused: failed -32603`,
      tool: provision,
      run: ({ mcp }) => task(mcp, provision, { name: 'prod', steps: 3, stepSeconds: 0, failStep: 3, refuseUndo: [1] }),
      closes: 'failed',
    },
    {
      name: 'provision-continued',
      about: `${provision}: one step per run (continue-as-new carrying the undos), 3 runs, completed`,
      tool: provision,
      run: ({ mcp }) => task(mcp, provision, { name: 'chain', steps: 3, stepSeconds: 0, stepsPerRun: 1 }),
      closes: 'completed',
      minRuns: 3,
    },
    {
      name: 'approve-answered',
      about: `${approve}: the approval elicitation answered by tasks/update, deployed, completed`,
      tool: approve,
      run: async ({ mcp }) => {
        const taskId = await task(mcp, approve, { service: 'billing', version: '2.4.1' });
        await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
        await mcp.updateTask(taskId, { approval: { action: 'accept', content: { approved: true, comment: 'ship it' } } });
        return taskId;
      },
      closes: 'completed',
    },
    {
      name: 'approve-cancelled',
      about: `${approve}: tasks/cancel while it waits for the approval (input_required), the slot released, cancelled`,
      tool: approve,
      run: async ({ mcp }) => {
        const taskId = await task(mcp, approve, { service: 'search', version: '3.0.0' });
        await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
        await mcp.cancelTask(taskId);
        return taskId;
      },
      closes: 'canceled',
    },
    {
      name: 'approve-unanswered',
      about: `${approve} started by a serve with --answer-within-ms ${ANSWER_WITHIN_MS}: the approval never answered, the slot released, failed McpTaskUnanswered`,
      tool: approve,
      serveArgs: ['--answer-within-ms', String(ANSWER_WITHIN_MS)],
      run: async ({ mcp }) => {
        const taskId = await task(mcp, approve, { service: 'ledger', version: '1.0.0' });
        await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
        return taskId;
      },
      closes: 'failed',
    },
    {
      name: 'provision-claimed',
      about: `${provision} started with claimWithinMs ${CLAIM_WITHIN_MS} (a caller without Tasks), mcp.claimed during step 1, 4 steps, completed`,
      tool: provision,
      run: async ({ client, store }) => {
        const taskId = await startUnclaimed(lang, store, { name: 'claimed', steps: 4, stepSeconds: 1 });
        await progressed(client, taskId, /^step 1\//);
        await store.claim(taskId);
        return taskId;
      },
      closes: 'completed',
    },
    {
      name: 'provision-unclaimed',
      about: `${provision} started with claimWithinMs ${CLAIM_WITHIN_MS}, never claimed: the claim guard undoes the steps, failed McpTaskUnclaimed (a helper without the guard completes)`,
      tool: provision,
      run: ({ store }) => startUnclaimed(lang, store, { name: 'unclaimed', steps: 4, stepSeconds: 1 }),
      closes: 'completed',
      closesGuarded: 'failed',
    },
    {
      name: 'provision-unclaimed-continued',
      about: `${provision} with claimWithinMs ${CLAIM_WITHIN_MS}, one step per run, never claimed: the deadline travels through continue-as-new (claimDeadline), failed McpTaskUnclaimed (a helper without the guard completes)`,
      tool: provision,
      run: ({ store }) => startUnclaimed(lang, store, { name: 'unclaimed-chain', steps: 4, stepSeconds: 1, stepsPerRun: 1 }),
      closes: 'completed',
      closesGuarded: 'failed',
      minRuns: 2,
    },
  ];
}
