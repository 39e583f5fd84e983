/**
 * What the two tiers of the generative test share (./generative.test.ts in process,
 * ./processes.test.ts with worker SIGKILLs): a stack whose server can be restarted by a case,
 * the test's time for a budget, and the line that reports the tally.
 */
import type { InProcessServer } from '../support/in-process';
import { ledgerDir } from '../support/ledger';
import { type Stack, type StackOptions, useStack } from '../support/stack';
import { type Budget, budgetFromEnv, checkGenerated, formatTally } from './property';
import type { CaseEnv } from './runner';

/** As low as the server allows, so multi-turn programs continue as new between turns. */
const config = { historyLimit: 10 };

export interface GenerativeTier {
  stack: Stack;
  ledger: string;
  budget: ReturnType<typeof budgetFromEnv>;
  /** The test's time: the cases, and shrinking a failure (fast-check stops shrinking 90 s before). */
  timeoutMs: number;
  /** Checks the budget's cases on `env` (a case env whose server restarts one at a time) and logs the tally. */
  run(env: Pick<CaseEnv, 'boundMs' | 'killWorker'>, kinds: Budget['kinds']): Promise<void>;
}

export function useGenerativeTier(opts: {
  name: string;
  stack: (ledger: string) => StackOptions;
  defaults: { cases: number; concurrency: number };
  cases?: number;
  baseMs: number;
  perCaseMs: number;
}): GenerativeTier {
  const ledger = ledgerDir();
  const stack = useStack({ config, ...opts.stack(ledger) });
  const budget = { ...budgetFromEnv(opts.defaults), ...(opts.cases ? { cases: opts.cases } : {}) };
  const timeoutMs = opts.baseMs + 90_000 + budget.cases * opts.perCaseMs;
  async function run(more: Pick<CaseEnv, 'boundMs' | 'killWorker'>, kinds: Budget['kinds']): Promise<void> {
    let server: InProcessServer = stack.server!;
    let restarting: Promise<void> | undefined;
    const env: CaseEnv = {
      client: stack.temporal.client,
      taskQueue: stack.taskQueue,
      ledgerDir: ledger,
      url: () => server.url,
      // one restart at a time: cases that ask together share it
      restartServer: () =>
        (restarting ??= (async () => {
          await server.close();
          server = await stack.serve({ config });
        })().finally(() => (restarting = undefined))),
      ...more,
    };
    const tally = await checkGenerated(env, { ...budget, timeLimitMs: timeoutMs - 90_000, kinds });
    const without = budget.without.length ? `, without ${budget.without.join(',')}` : '';
    console.log(`[generative] ${opts.name}, budget ${budget.cases}, seed ${budget.seed ?? 'random'}${without}: ${formatTally(tally)}`);
  }
  return { stack, ledger, budget, timeoutMs, run };
}
