/**
 * A worker of the language SIGKILLed mid-task (docs/contract.md): another worker picks the task
 * up where its history says, and the effects ledger shows nothing lost or applied twice.
 */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import type { ContractSuiteContext } from './contract-claim';
import { taskSession } from './mcp';
import { waitFor } from './wait';

export interface CrashContext extends ContractSuiteContext {
  approve: string;
  eventsOf: (taskId: string) => string[];
  /** SIGKILLs the suite's worker and starts another on the same ledger. */
  killWorker: (whileDown?: () => Promise<void>) => Promise<void>;
}

export function workerCrashTests({ lang, approve, provision, url: urlOf, eventsOf, stepsOf, closed, killWorker }: CrashContext): void {
  const completedInTemporal = async (taskId: string) => {
    const described = await closed(taskId);
    expect(described.status.name).toBe('COMPLETED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['completed']);
  };

  test(`a ${lang} worker SIGKILLed while a task waits for input: another worker takes the answer, nothing lost or applied twice`, async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((r) => (asked = r));
    let restarted!: () => void;
    const answerable = new Promise<void>((r) => (restarted = r));
    const { session, close } = await taskSession(urlOf(), async () => {
      asked();
      await answerable; // answered only once the worker that asked is dead and another polls
      return { action: 'accept', content: { approved: true, comment: 'after the crash' } } as any;
    });
    try {
      const execution = await session.callTool(approve, { service: 'crash', version: '5.0' });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      await waiting;
      await killWorker();
      restarted();
      const result = resultFromTaskOutcome((await settled).outcome) as any;
      expect(result.structuredContent).toMatchObject({ service: 'crash', deployed: true, comment: 'after the crash' });
      expect(eventsOf(taskId)).toEqual(['reserve', 'deploy']);
      await completedInTemporal(taskId);
    } finally {
      await close();
    }
  }, 180_000);

  test(`a ${lang} worker SIGKILLed mid-step: another worker finishes the task, nothing lost or applied twice`, async () => {
    const { session, close } = await taskSession(urlOf());
    try {
      const execution = await session.callTool(provision, { name: 'crash', steps: 3, stepSeconds: 2 });
      const taskId = (execution as any).handle.taskId as string;
      const settled = execution.settle();
      await waitFor(async () => (stepsOf(taskId).length === 1 ? true : undefined)); // step 2's activity runs
      await killWorker();
      expect((await settled).outcome).toMatchObject({ status: 'completed' });
      expect(stepsOf(taskId)).toEqual([
        ['provision', 1, undefined],
        ['provision', 2, undefined],
        ['provision', 3, undefined],
      ]);
      await completedInTemporal(taskId);
    } finally {
      await close();
    }
  }, 180_000);
}
