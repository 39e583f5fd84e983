/**
 * The generative test, fast tier (issue 31 item 13): generated tool programs and event
 * schedules (cancels, answers and partial answers, a cancel racing an answer, a server restart)
 * on the run's real dev server through real MCP requests, the library's server and a worker in
 * this process, with every invariant of ./invariants checked after each case. The history limit
 * is as low as the server allows, so multi-turn programs continue as new between turns.
 * `npm run test:generative -- --cases N --seed S` runs more (scripts/generative.ts); worker
 * SIGKILLs are in ./processes.test.ts.
 */
import { ledgerDir } from '../support/ledger';
import type { InProcessServer } from '../support/in-process';
import { useStack } from '../support/stack';
import { budgetFromEnv, checkGenerated, formatTally } from './property';
import type { CaseEnv } from './runner';

const config = { historyLimit: 10 };
const ledger = ledgerDir();
const stack = useStack({ config, workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });
const budget = budgetFromEnv({ cases: 32, concurrency: 8 });

/** The test's time: the cases, and shrinking a failure (fast-check stops shrinking 90 s before). */
const timeout = 60_000 + 90_000 + budget.cases * 4_000;

test(`${budget.cases} generated programs: every reader agrees, no effect twice, undos as the end says`, async () => {
  let server: InProcessServer = stack.server!;
  let restarting: Promise<void> | undefined;
  const env: CaseEnv = {
    client: stack.temporal.client,
    ledgerDir: ledger,
    url: () => server.url,
    // one restart at a time: cases that ask together share it
    restartServer: () =>
      (restarting ??= (async () => {
        await server.close();
        server = await stack.serve({ config });
      })().finally(() => (restarting = undefined))),
    boundMs: 30_000,
  };
  const tally = await checkGenerated(env, { ...budget, timeLimitMs: timeout - 90_000, kinds: ['cancel', 'answer', 'answerUnasked', 'cancelRacingAnswer', 'restartServer'] });
  console.log(`[generative] fast tier, budget ${budget.cases}, seed ${budget.seed ?? 'random'}${budget.without.length ? `, without ${budget.without.join(',')}` : ''}: ${formatTally(tally)}`);
}, timeout);
