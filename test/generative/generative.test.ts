/**
 * The generative test, fast tier (issue 31 item 13): generated tool programs and event
 * schedules (cancels, answers and partial answers, a cancel racing an answer, a server restart,
 * claims of runs started guarded as calls from clients without Tasks are)
 * on the run's real dev server through real MCP requests, the library's server and a worker in
 * this process, with every invariant of ./invariants checked after each case. The history limit
 * is as low as the server allows, so multi-turn programs continue as new between turns.
 * `npm run test:generative -- --cases N --seed S` runs more (scripts/generative.ts); worker
 * SIGKILLs are in ./processes.test.ts.
 */
import { useGenerativeTier } from './tier';

const tier = useGenerativeTier({
  name: 'fast tier',
  stack: (ledger) => ({ workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } }),
  defaults: { cases: 32, concurrency: 8 },
  baseMs: 60_000,
  perCaseMs: 4_000,
});

test(
  `${tier.budget.cases} generated programs: every reader agrees, no effect twice, undos as the end says`,
  async () => {
    await tier.run({ boundMs: 30_000 }, ['cancel', 'answer', 'answerUnasked', 'cancelRacingAnswer', 'restartServer', 'claim']);
  },
  tier.timeoutMs,
);
