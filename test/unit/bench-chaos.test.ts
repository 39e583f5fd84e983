// bench:chaos (issue 20): one seed gives one plan, bad flags are refused, and the verdict of a
// task is taken from what its client did, tasks/get, Temporal and the effects ledger.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- typed loosely here: the fixtures are partial task records
const chaos = require('../../bench/chaos') as {
  parseArgs(argv: string[]): { tasks: number; seed: number; kills: number; spreadMs: number };
  prng(seed: number): unknown;
  planTasks(opts: unknown, rnd: unknown): any[];
  planKills(opts: unknown, rnd: unknown): Record<string, Array<{ at: number; downMs: number }>>;
  judge(r: unknown, effects: Map<string, number>, temporalStatus?: string): any;
};

const plan = (seed: number) => {
  const opts = chaos.parseArgs(['--tasks', '60', '--seed', String(seed)]);
  const rnd = chaos.prng(seed);
  return { tasks: chaos.planTasks(opts, rnd), kills: chaos.planKills(opts, rnd) };
};

test('one seed, one plan: the same tasks, cancel moments and kill schedule; another seed, another', () => {
  expect(plan(7)).toEqual(plan(7));
  expect(plan(8)).not.toEqual(plan(7));
  const { tasks, kills } = plan(7);
  expect(new Set(tasks.map((t) => t.kind))).toEqual(new Set(['wait_and_echo', 'approve_expense', 'provision_environment']));
  for (const role of ['worker', 'server', 'temporal']) {
    expect(kills[role]).toHaveLength(3);
    kills[role].slice(1).forEach((k, i) => expect(k.at - kills[role][i].at).toBeGreaterThanOrEqual(4_000));
  }
});

test('flags: defaults, and a bad flag or value is refused with the usage', () => {
  expect(chaos.parseArgs([])).toMatchObject({ tasks: 200, seed: 1, kills: 3, spreadMs: 40_000 });
  expect(() => chaos.parseArgs(['--tasks', 'many'])).toThrow(/usage: chaos\.js/);
  expect(() => chaos.parseArgs(['--task', '5'])).toThrow(/usage: chaos\.js/);
});

const provision = (status: string, cancel?: string) => ({
  kind: 'provision_environment',
  taskId: 'task_p',
  args: { steps: 2 },
  final: { status },
  ...(cancel ? { cancel: { reported: cancel } } : {}),
});
const ledger = (entries: Record<string, number>) => new Map(Object.entries(entries));

test('a provision: cancelled with a step kept, completed with a step undone, an effect applied twice', () => {
  const kept = chaos.judge(
    provision('cancelled', 'cancelled'),
    ledger({ 'provision-task_p:step-1': 1, 'provision-task_p:step-2': 1, 'deprovision-task_p:step-1': 1 }),
    'COMPLETED',
  );
  expect(kept).toMatchObject({ right: false, keptAfterCancel: true, temporalDisagrees: true });
  const undone = chaos.judge(
    provision('completed'),
    ledger({ 'provision-task_p:step-1': 1, 'provision-task_p:step-2': 2, 'deprovision-task_p:step-2': 1 }),
    'COMPLETED',
  );
  expect(undone).toMatchObject({ right: false, undoneAfterComplete: true, twice: 1, temporalDisagrees: false });
  const clean = chaos.judge(
    provision('cancelled', 'cancelled'),
    ledger({ 'provision-task_p:step-1': 1, 'deprovision-task_p:step-1': 1 }),
    'CANCELLED',
  );
  expect(clean).toMatchObject({ right: true, keptAfterCancel: false, twice: 0 });
  // the cancel came after the tool finished: completed is the right end
  expect(
    chaos.judge(provision('completed', 'completed'), ledger({ 'provision-task_p:step-1': 1, 'provision-task_p:step-2': 1 }), 'COMPLETED'),
  ).toMatchObject({ right: true });
  expect(chaos.judge(provision('working'), ledger({}), 'RUNNING')).toMatchObject({ terminal: false, right: false });
});

test('approve_expense: approved is a plain result, rejected a tool error; the other way round is wrong', () => {
  const approve = (approved: boolean, text: string, isError?: boolean) => ({
    kind: 'approve_expense',
    taskId: 'task_a',
    approved,
    final: { status: 'completed', result: { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) } },
  });
  expect(chaos.judge(approve(true, 'Expense of 1 for "x" was approved.'), ledger({})).right).toBe(true);
  expect(chaos.judge(approve(false, 'Expense of 1 for "x" was rejected.', true), ledger({})).right).toBe(true);
  expect(chaos.judge(approve(true, 'Expense of 1 for "x" was rejected.', true), ledger({})).right).toBe(false);
});
