/**
 * The tests every example of docs/contract.md in another language passes (issue 36: Go, Java and
 * Python): `serve` exposes the language's tools file, that language's own worker runs the
 * workflows, and the test reads tasks/get, Temporal and the effects ledger. The tools are
 * `approve_deployment_<lang>` (unless `approveTool` names it otherwise) and `provision_<lang>`.
 */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TASK_RUNTIME_REVISION } from '../../src/contract';
import { toolsFromFile } from '../../src/mcp/workflow-tools';
import { claimGuardTest, claimRaceTests } from './contract-claim';
import { workerCrashTests } from './contract-crash';
import { call, taskSession } from './mcp';
import type { ChildHandle } from './processes';
import { useStack } from './stack';
import { waitFor } from './wait';

export interface ContractToolsOptions {
  lang: string;
  toolsFile: string;
  /** Builds the worker if needed (the first time: the toolchain's downloads); logs what it took. */
  prepare: () => void;
  /** Starts one worker process and resolves once it polls. */
  startWorker: (address: string, ledger: string) => Promise<ChildHandle>;
  /** Default `approve_deployment_<lang>`. */
  approveTool?: string;
  /**
   * What a failed undo's reason has before the activity's own message (default none). Python's
   * helper keeps the SDK's ActivityError message ("Activity task failed: "), as TypeScript does.
   */
  undoReasonPrefix?: string;
}

type LedgerLine = { event: string; taskId: string; step?: number; applied?: boolean };

export function contractToolSuite({
  lang,
  toolsFile,
  prepare,
  startWorker,
  approveTool: approve = `approve_deployment_${lang}`,
  undoReasonPrefix = '',
}: ContractToolsOptions): void {
  const provision = `provision_${lang}`;
  const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `mtt-ledger-${lang}-`)), 'ledger.jsonl');
  const stack = useStack({ noWorker: true, noServer: true });
  let url: string;
  let worker: ChildHandle | undefined;

  beforeAll(async () => {
    prepare();
    worker = await startWorker(stack.temporal.address, ledger);
    ({ url } = await stack.serve({ tools: toolsFromFile(toolsFile) }));
  }, 900_000);
  // the worker is ours: stopped by its pid
  afterAll(() => worker?.stop('SIGTERM', 10_000));

  /** The task's ledger lines, in the order its activities ran. */
  const ledgerOf = (taskId: string): LedgerLine[] =>
    fs.existsSync(ledger)
      ? fs
          .readFileSync(ledger, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((l) => l.taskId === taskId)
      : [];
  const eventsOf = (taskId: string) => ledgerOf(taskId).map((l) => l.event);
  const stepsOf = (taskId: string) => ledgerOf(taskId).map((l) => [l.event, l.step, l.applied]);
  const closed = (taskId: string) =>
    waitFor(async () => {
      const d = await stack.temporal.client.workflow.getHandle(taskId).describe();
      return d.status.name === 'RUNNING' ? undefined : d;
    }, 60_000);
  const textOf = (result: any) => result.content.map((c: any) => c.text).join('');
  const suite = { lang, toolsFile, provision, stack, url: () => url, stepsOf, closed };
  claimGuardTest(suite);
  const neverAnswered = (_request: any, context: any): Promise<any> =>
    new Promise((_resolve, reject) => context.signal?.addEventListener('abort', () => reject(context.signal.reason), { once: true }));

  test(`a ${lang} workflow following the contract: statusMessage, a form elicitation answered, structuredContent`, async () => {
    const seen: any[] = [];
    const { session, close } = await taskSession(url, async (request: any, context: any) => {
      seen.push({ request, task: await call(url, 'tasks/get', { taskId: context.taskId }) });
      return { action: 'accept', content: { approved: true, comment: 'ship it' } } as any;
    });
    try {
      const execution = await session.callTool(approve, { service: 'billing', version: '2.4.1' });
      const taskId = (execution as any).handle.taskId as string;
      const result = resultFromTaskOutcome((await execution.settle()).outcome) as any;
      expect(seen).toHaveLength(1);
      expect(seen[0].request).toMatchObject({ kind: 'elicitation', params: { message: 'Deploy billing 2.4.1?' } });
      expect(seen[0].task).toMatchObject({ status: 'input_required', statusMessage: 'waiting for approval to deploy billing 2.4.1' });
      expect(seen[0].task.inputRequests.approval.params.requestedSchema.required).toEqual(['approved']);
      expect(result.structuredContent).toMatchObject({ service: 'billing', version: '2.4.1', deployed: true, comment: 'ship it' });
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      expect(eventsOf(taskId)).toEqual(['reserve', 'deploy']);
      const described = await closed(taskId);
      expect(described.status.name).toBe('COMPLETED');
      expect(described.searchAttributes.McpTaskStatus).toEqual(['completed']);
      expect(described.memo?.mcpProgress).toMatchObject({ status: 'working', statusMessage: 'deploying billing 2.4.1', inputRequests: {} });
      // started at the TypeScript runtime's revision like every task; the other languages' helpers ignore the field
      expect(described.memo?.mcpTask).toMatchObject({ runtime: TASK_RUNTIME_REVISION });
    } finally {
      await close();
    }
  });

  test(`a ${lang} activity's progress (heartbeat details) is the statusMessage tasks/get reads while it runs`, async () => {
    const { session, close } = await taskSession(url);
    try {
      const execution = await session.callTool(provision, { name: 'progress', steps: 1, stepSeconds: 4 });
      const taskId = (execution as any).handle.taskId as string;
      const seen = await waitFor(async () => {
        const task = await call(url, 'tasks/get', { taskId });
        return /^step 1: provisioning \(\d+ of 100\)$/.test(task.statusMessage ?? '') ? task : undefined;
      }, 10_000);
      expect(seen.status).toBe('working');
      expect((await execution.settle()).outcome).toMatchObject({ status: 'completed' });
    } finally {
      await close();
    }
  });

  test(`cancelling a ${lang} task while an activity runs undoes every step, newest first, and ends it cancelled`, async () => {
    const { session, close } = await taskSession(url);
    try {
      const execution = await session.callTool(provision, { name: 'staging', steps: 2, stepSeconds: 3 });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      await waitFor(async () => (stepsOf(taskId).length === 1 ? true : undefined)); // step 2's activity runs
      await execution.cancel();
      expect((await settled).outcome).toMatchObject({ status: 'cancelled' });
      const described = await closed(taskId);
      expect(described.status.name).toBe('CANCELLED');
      expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
      expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
      // the step in flight is undone too (a no-op: it never took effect), then step 1
      expect(stepsOf(taskId)).toEqual([
        ['provision', 1, undefined],
        ['deprovision', 2, false],
        ['deprovision', 1, true],
      ]);
    } finally {
      await close();
    }
  });

  test(`cancelling a ${lang} deployment while it waits for approval releases the slot and ends cancelled`, async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((r) => (asked = r));
    const { session, close } = await taskSession(url, (request: any, context: any) => {
      asked();
      return neverAnswered(request, context);
    });
    try {
      const execution = await session.callTool(approve, { service: 'search', version: '9.0' });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      await waiting;
      await execution.cancel();
      expect((await settled).outcome).toMatchObject({ status: 'cancelled' });
      const described = await closed(taskId);
      expect(described.status.name).toBe('CANCELLED');
      expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
      expect(described.memo?.mcpProgress).toMatchObject({ status: 'working', inputRequests: {} }); // withdrawn
      expect(eventsOf(taskId)).toEqual(['reserve', 'release']);
    } finally {
      await close();
    }
  });

  test(`cancelling a ${lang} deployment while it watches the rollout undoes the deploy, then releases the slot`, async () => {
    const { session, close } = await taskSession(url, async () => ({ action: 'accept', content: { approved: true } }) as any);
    try {
      const execution = await session.callTool(approve, { service: 'ledger', version: '3.1', watchSeconds: 30 });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      await waitFor(async () => (eventsOf(taskId).includes('deploy') ? true : undefined)); // the deploy activity watches, heartbeating
      await execution.cancel();
      expect((await settled).outcome).toMatchObject({ status: 'cancelled' });
      const described = await closed(taskId); // the session settles on its own cancel: the undos may still run
      expect(described.status.name).toBe('CANCELLED');
      expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
      expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
      // newest first: the deploy is undone before the slot is released
      expect(eventsOf(taskId)).toEqual(['reserve', 'deploy', 'undeploy', 'release']);
    } finally {
      await close();
    }
  });

  test(`a ${lang} elicitation that times out reads as the client's cancel: the request is withdrawn and the tool decides`, async () => {
    let asked = 0;
    const { session, close } = await taskSession(url, (request: any, context: any) => {
      asked++;
      return neverAnswered(request, context);
    });
    try {
      const execution = await session.callTool(approve, { service: 'cache', version: '1.0', approvalTimeoutSeconds: 1 });
      const taskId = (execution as any).handle.taskId as string;
      void execution.settle().catch(() => undefined); // read with tasks/get below
      const task = await waitFor(async () => {
        const t = await call(url, 'tasks/get', { taskId });
        return t.status === 'working' || t.status === 'input_required' ? undefined : t;
      });
      expect(asked).toBe(1);
      expect(task.status).toBe('completed');
      expect(task.result).toMatchObject({ isError: true });
      expect(textOf(task.result)).toBe('Deployment of cache 1.0 was not approved (answered cancel)');
      expect(eventsOf(taskId)).toEqual(['reserve', 'release']);
      const described = await closed(taskId);
      expect(described.searchAttributes.McpTaskStatus).toEqual(['completed']);
      expect(described.memo?.mcpProgress).toMatchObject({ status: 'working', inputRequests: {} });
    } finally {
      await close();
    }
  });

  test(`a ${lang} task whose undos partly fail: every undo is attempted, the task fails naming each step left in place`, async () => {
    const { session, close } = await taskSession(url);
    try {
      const execution = await session.callTool(provision, { name: 'prod', steps: 4, stepSeconds: 0, failStep: 4, refuseUndo: [1, 3] });
      const taskId = (execution as any).handle.taskId as string;
      expect((await execution.settle()).outcome).toMatchObject({ status: 'failed' });
      const task = await call(url, 'tasks/get', { taskId });
      expect(task).toMatchObject({ status: 'failed', error: { code: -32603 } });
      expect(task.error.message).toBe(
        `2 step(s) could not be undone: step 3 of prod (${undoReasonPrefix}step 3 is locked and cannot be deprovisioned); ` +
          `step 1 of prod (${undoReasonPrefix}step 1 is locked and cannot be deprovisioned)`,
      );
      expect(task.error.data.undoFailures.map((f: any) => f.step)).toEqual(['step 3 of prod', 'step 1 of prod']);
      expect(stepsOf(taskId)).toEqual([
        ['provision', 1, undefined],
        ['provision', 2, undefined],
        ['provision', 3, undefined],
        ['deprovision', 4, false],
        ['deprovision-refused', 3, undefined],
        ['deprovision', 2, true],
        ['deprovision-refused', 1, undefined],
      ]);
      const described = await closed(taskId);
      expect(described.status.name).toBe('FAILED');
      expect(described.searchAttributes.McpTaskStatus).toEqual(['failed']);
      expect(described.memo?.mcpProgress).toMatchObject({ statusMessage: 'could not undo: step 3 of prod, step 1 of prod' });
    } finally {
      await close();
    }
  });

  test(`a ${lang} task that continued as new: a cancel in a later run undoes the earlier runs' steps too`, async () => {
    const { session, close } = await taskSession(url);
    try {
      const execution = await session.callTool(provision, { name: 'chain', steps: 4, stepSeconds: 2, stepsPerRun: 1 });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      // two steps done by two runs: the third run's step is in flight, its progress published
      const running = await waitFor(async () => {
        const d = await stack.temporal.client.workflow.getHandle(taskId).describe();
        return (d.memo?.mcpProgress as any)?.statusMessage === 'step 3/4: provisioning chain' ? d : undefined;
      });
      // the memo and the search attributes went along to the third run
      expect(running.memo?.mcpTask).toMatchObject({ tool: provision });
      expect(running.searchAttributes.McpTool).toEqual([provision]);
      expect(running.searchAttributes.McpTaskStatus).toEqual(['working']);
      expect(stepsOf(taskId)).toEqual([
        ['provision', 1, undefined],
        ['provision', 2, undefined],
      ]);
      await execution.cancel();
      expect((await settled).outcome).toMatchObject({ status: 'cancelled' });
      const described = await closed(taskId);
      expect(described.status.name).toBe('CANCELLED');
      expect(described.raw.workflowExecutionInfo?.firstRunId).not.toBe(described.runId); // a later run ended it
      const undone = stepsOf(taskId).filter(([event]) => event === 'deprovision');
      expect(undone.map(([, step]) => step)).toEqual([3, 2, 1]);
      expect(undone.slice(1).every(([, , applied]) => applied === true)).toBe(true);
    } finally {
      await close();
    }
  });

  // last: they replace the suite's worker
  const killWorker = async (whileDown?: () => Promise<void>) => {
    await worker!.stop('SIGKILL');
    try {
      await whileDown?.();
    } finally {
      worker = await startWorker(stack.temporal.address, ledger); // the tests after it need one
    }
  };
  workerCrashTests({ ...suite, approve, eventsOf, killWorker });
  claimRaceTests({ ...suite, approve, eventsOf, killWorker });
}
