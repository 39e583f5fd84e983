/** bench:chaos's verdict: what each task should have ended as, and the table of what was found. */
import { KINDS, type Plan } from './chaos-plan';
import { fmt, markdownTable } from './stats';

export const TERMINAL = ['completed', 'failed', 'cancelled'];

/** What its client did and saw. */
export interface TaskRecord extends Plan {
  taskId?: string;
  createdAt?: number;
  cancel?: { reported: string };
  answered: boolean;
  errors: string[];
  final?: any;
  terminalAt?: number;
}

export interface Verdict {
  terminal: boolean;
  right: boolean;
  twice: number;
  keptAfterCancel: boolean;
  undoneAfterComplete: boolean;
  temporalDisagrees: boolean;
  expected?: string;
  why?: string;
}

/** What the task should have ended as, from what its client did and what the cancel reported. */
function expectedStatus(r: TaskRecord): string {
  if (r.cancel) return r.cancel.reported === 'completed' ? 'completed' : r.cancel.reported === 'failed' ? 'failed' : 'cancelled';
  return 'completed';
}

const TEMPORAL_TO_TASK: Record<string, string> = {
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  TERMINATED: 'failed',
  TIMED_OUT: 'failed',
  CONTINUED_AS_NEW: 'working',
  RUNNING: 'working',
};

export function judge(r: TaskRecord, effects: Map<string, number>, temporalStatus?: string): Verdict {
  const got = r.final?.status;
  const verdict: Verdict = {
    terminal: TERMINAL.includes(got),
    right: false,
    twice: 0,
    keptAfterCancel: false,
    undoneAfterComplete: false,
    temporalDisagrees: false,
  };
  if (temporalStatus && verdict.terminal) verdict.temporalDisagrees = TEMPORAL_TO_TASK[temporalStatus] !== got;
  if (!verdict.terminal) return verdict;
  const expected = expectedStatus(r);
  let right = got === expected;
  const text = r.final.result?.content?.[0]?.text ?? '';
  if (right && got === 'completed' && r.kind === 'wait_and_echo') right = text === r.args.text;
  // approved: a plain result saying so; rejected: a tool error (isError) saying so
  if (right && got === 'completed' && r.kind === 'approve_expense')
    right = !!r.final.result?.isError === !r.approved && (r.approved ? /was approved/ : /was rejected/).test(text);
  if (r.kind === 'provision_environment') {
    const steps = Array.from({ length: r.args.steps }, (_, k) => `${r.taskId}:step-${k + 1}`);
    const done = steps.map((s) => effects.get(`provision-${s}`) ?? 0);
    const undone = steps.map((s) => effects.get(`deprovision-${s}`) ?? 0);
    verdict.twice = [...done, ...undone].filter((n) => n > 1).length;
    const kept = steps.some((_, k) => done[k] > 0 && undone[k] === 0);
    verdict.keptAfterCancel = got === 'cancelled' && kept;
    verdict.undoneAfterComplete = got === 'completed' && undone.some((n) => n > 0);
    if (got === 'completed') right &&= done.every((n) => n > 0) && !verdict.undoneAfterComplete;
    if (got === 'cancelled') right &&= !kept;
  }
  verdict.right = right;
  verdict.expected = expected;
  verdict.why =
    [
      got !== expected && `expected ${expected}`,
      verdict.keptAfterCancel && 'a step kept after the cancel',
      verdict.undoneAfterComplete && 'a step undone though completed',
      verdict.temporalDisagrees && `Temporal says ${temporalStatus}`,
    ]
      .filter(Boolean)
      .join(', ') || (right ? '' : 'wrong result');
  return verdict;
}

export function render(records: TaskRecord[], verdicts: Map<TaskRecord, Verdict>, extra: Record<string, any>): string {
  const rows = [...KINDS, 'all'].map((kind) => {
    const mine = records.filter((r) => kind === 'all' || r.kind === kind);
    const v = mine.map((r) => verdicts.get(r)!);
    const count = (f: (x: Verdict) => boolean) => v.filter(f).length;
    return [
      kind,
      mine.length,
      mine.filter((r) => r.cancelAfterMs !== undefined).length,
      kind === 'approve_expense' || kind === 'all' ? mine.filter((r) => r.answered).length : '–',
      count((x) => x.right),
      count((x) => x.terminal && !x.right),
      v.reduce((a, x) => a + x.twice, 0),
      count((x) => x.keptAfterCancel),
      count((x) => x.undoneAfterComplete),
      count((x) => x.temporalDisagrees),
      count((x) => !x.terminal),
    ];
  });
  const header = [
    'kind',
    'tasks',
    'cancel sent',
    'answered',
    'ended right',
    'ended wrong',
    'effects applied twice',
    'cancelled, effect kept',
    'completed, step undone',
    'Temporal disagrees',
    'never terminal',
  ];
  return [
    markdownTable(header, rows),
    '',
    `seed ${extra.seed}; SIGKILLs: worker ${extra.kills.worker}, server ${extra.kills.server}, Temporal ${extra.kills.temporal}; ` +
      `tools/call retries ${extra.createRetries} (unacknowledged starts in Temporal: ${extra.unacknowledged}, still running ${extra.unacknowledgedRunning}); ` +
      `effects.log: ${extra.effectLines} lines, ${extra.effectKeysTwice} keys applied more than once (all tasks, unacknowledged ones too); ` +
      `client errors ${extra.clientErrors}; median created → terminal ${fmt(extra.medianSeconds)} s; run time ${fmt(extra.runSeconds)} s`,
  ].join('\n');
}
