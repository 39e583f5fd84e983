/**
 * The generative test, process tier: the same programs and invariants as ./generative.test.ts,
 * with the worker in a child process (dist/, `npm run build`) so a schedule can SIGKILL it (a
 * new worker starts at once, as an orchestrator would start one). A kill hits every case
 * running at that moment; the invariants must hold all the same. Fewer cases than the fast
 * tier: a lost worker's tasks wait for Temporal's timeouts (heartbeat, workflow task).
 * MTT_GEN_PROCESS_CASES sets the budget (scripts/generative.ts: --process-cases).
 */
import fs from 'node:fs';
import { startWorker } from '../support/mcp';
import { CLI } from '../support/paths';
import type { CliProcess } from '../support/processes';
import { useGenerativeTier } from './tier';

const tier = useGenerativeTier({
  name: 'process tier',
  stack: () => ({ noWorker: true }),
  defaults: { cases: 12, concurrency: 6 },
  cases: process.env.MTT_GEN_PROCESS_CASES ? Number(process.env.MTT_GEN_PROCESS_CASES) : undefined,
  baseMs: 120_000,
  perCaseMs: 15_000,
});

test(
  `${tier.budget.cases} generated programs with worker SIGKILLs: every reader agrees, no effect twice`,
  async () => {
    if (!fs.existsSync(CLI)) throw new Error(`no ${CLI}: the worker runs from the build (npm run build)`);
    const { stack, ledger } = tier;
    const spawnWorker = () => startWorker(stack.temporal.address, { MCP_TASKS_LEDGER_DIR: ledger }, ['--task-queue', stack.taskQueue]);
    let worker: CliProcess = await spawnWorker();
    let killing: Promise<void> | undefined;
    const killWorker = () =>
      (killing ??= (async () => {
        worker.child.kill('SIGKILL');
        await worker.exited;
        worker = await spawnWorker();
      })().finally(() => (killing = undefined)));
    await tier.run({ boundMs: 60_000, killWorker }, [
      'cancel',
      'answer',
      'answerUnasked',
      'cancelRacingAnswer',
      'restartServer',
      'killWorker',
      'claim',
    ]);
  },
  tier.timeoutMs,
);
