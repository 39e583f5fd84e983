/**
 * The generative test, process tier: the same programs and invariants as ./generative.test.ts,
 * with the worker in a child process (dist/, `npm run build`) so a schedule can SIGKILL it (a
 * new worker starts at once, as an orchestrator would start one). A kill hits every case
 * running at that moment; the invariants must hold all the same. Fewer cases than the fast
 * tier: a lost worker's tasks wait for Temporal's timeouts (heartbeat, workflow task).
 * MTT_GEN_PROCESS_CASES sets the budget (scripts/generative.ts: --process-cases).
 */
import fs from 'node:fs';
import { ledgerDir } from '../support/ledger';
import type { InProcessServer } from '../support/in-process';
import { startWorker } from '../support/mcp';
import { CLI } from '../support/paths';
import type { CliProcess } from '../support/processes';
import { useStack } from '../support/stack';
import { budgetFromEnv, checkGenerated, formatTally } from './property';
import type { CaseEnv } from './runner';

const config = { historyLimit: 10 };
const ledger = ledgerDir();
const stack = useStack({ config, noWorker: true });
const budget = { ...budgetFromEnv({ cases: 12, concurrency: 6 }), ...(process.env.MTT_GEN_PROCESS_CASES ? { cases: Number(process.env.MTT_GEN_PROCESS_CASES) } : {}) };

/** The test's time: the cases, and shrinking a failure (fast-check stops shrinking 90 s before). */
const timeout = 120_000 + 90_000 + budget.cases * 15_000;

test(`${budget.cases} generated programs with worker SIGKILLs: every reader agrees, no effect twice`, async () => {
  if (!fs.existsSync(CLI)) throw new Error(`no ${CLI}: the worker runs from the build (npm run build)`);
  const spawnWorker = () => startWorker(stack.temporal.address, { MCP_TASKS_LEDGER_DIR: ledger }, ['--task-queue', stack.taskQueue]);
  let worker: CliProcess = await spawnWorker();
  let server: InProcessServer = stack.server!;
  let restarting: Promise<void> | undefined;
  let killing: Promise<void> | undefined;
  const env: CaseEnv = {
    client: stack.temporal.client,
    ledgerDir: ledger,
    url: () => server.url,
    restartServer: () =>
      (restarting ??= (async () => {
        await server.close();
        server = await stack.serve({ config });
      })().finally(() => (restarting = undefined))),
    killWorker: () =>
      (killing ??= (async () => {
        worker.child.kill('SIGKILL');
        await worker.exited;
        worker = await spawnWorker();
      })().finally(() => (killing = undefined))),
    boundMs: 60_000,
  };
  const tally = await checkGenerated(env, { ...budget, timeLimitMs: timeout - 90_000, kinds: ['cancel', 'answer', 'answerUnasked', 'cancelRacingAnswer', 'restartServer', 'killWorker'] });
  console.log(`[generative] process tier, budget ${budget.cases}, seed ${budget.seed ?? 'random'}${budget.without.length ? `, without ${budget.without.join(',')}` : ''}: ${formatTally(tally)}`);
}, timeout);
