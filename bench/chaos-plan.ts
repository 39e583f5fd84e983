/** bench:chaos's plan: the flags, the seeded PRNG, what each task does and when each process is killed. */

export const KINDS = ['wait_and_echo', 'approve_expense', 'provision_environment'] as const;
export type Kind = (typeof KINDS)[number];
export type Role = 'worker' | 'server' | 'temporal';

export interface ChaosOptions {
  tasks: number;
  seed: number;
  kills: number;
  settleSeconds: number;
  /** Tasks are created over this window, and the kills land in it (plus a little). */
  spreadMs: number;
}

/** What one task does, decided up front. */
export interface Plan {
  i: number;
  kind: Kind;
  at: number;
  args: Record<string, any>;
  cancelAfterMs?: number;
  approved?: boolean;
  answerAfterMs?: number;
}

export function parseArgs(argv: string[]): ChaosOptions {
  const opts = { tasks: 200, seed: 1, kills: 3, settleSeconds: 300 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i].replace(/^--/, '');
    const value = Number(argv[++i]);
    const key = ({ tasks: 'tasks', seed: 'seed', kills: 'kills', 'settle-seconds': 'settleSeconds' } as const)[flag as 'tasks'];
    if (!key || !Number.isInteger(value) || value < 0)
      throw new Error(`usage: chaos.js [--tasks N] [--seed S] [--kills K] [--settle-seconds S] (got ${argv[i - 1]} ${argv[i] ?? ''})`);
    opts[key] = value;
  }
  return { ...opts, spreadMs: Math.max(10_000, opts.tasks * 200) };
}

/** mulberry32: a small seeded PRNG, so one seed gives one plan and one kill schedule. */
export type Rnd = ReturnType<typeof prng>;

export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (lo: number, hi: number) => lo + next() * (hi - lo),
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
  };
}

// ---- the plan ---------------------------------------------------------------------------------

/** What each task does, decided up front from the seed: when it starts, what it asks, whether and when it is cancelled. */
export function planTasks(opts: ChaosOptions, rnd: Rnd): Plan[] {
  return Array.from({ length: opts.tasks }, (_, i): Plan => {
    const kind = KINDS[Math.floor(rnd.next() * KINDS.length)];
    const at = (i * opts.spreadMs) / opts.tasks;
    if (kind === 'wait_and_echo') {
      const seconds = rnd.int(1, 8);
      return {
        i,
        kind,
        at,
        args: { text: `echo-${i}`, seconds },
        cancelAfterMs: rnd.chance(0.3) ? rnd.between(0, seconds * 1200) : undefined,
      };
    }
    if (kind === 'approve_expense') {
      const answerAfterMs = rnd.between(500, 6000);
      const approved = rnd.chance(0.8);
      // a quarter are cancelled, half of those right around the answer (the race of issue 20, item 1)
      const cancel = rnd.chance(0.25);
      const cancelAfterMs = !cancel ? undefined : rnd.chance(0.5) ? answerAfterMs + rnd.between(-200, 200) : rnd.between(0, 8000);
      return { i, kind, at, args: { amount: i + 1, description: `chaos ${i}` }, approved, answerAfterMs, cancelAfterMs };
    }
    const steps = rnd.int(1, 4);
    const stepMs = rnd.int(300, 1500);
    // 40 % cancelled: half anywhere, half within the last 300 ms of the last step
    const cancel = rnd.chance(0.4);
    const end = steps * stepMs;
    const cancelAfterMs = !cancel ? undefined : rnd.chance(0.5) ? rnd.between(0, end) : end - rnd.between(0, 300);
    return { i, kind, at, args: { name: `env-${i}`, steps, stepMs }, cancelAfterMs };
  });
}

/** Per role, `kills` moments in the chaos window, at least 4 s apart, each with its downtime. */
export type Schedule = Record<Role, Array<{ at: number; downMs: number }>>;

export function planKills(opts: ChaosOptions, rnd: Rnd): Schedule {
  const windowMs = opts.spreadMs + 10_000;
  const schedule = {} as Schedule;
  for (const role of ['worker', 'server', 'temporal'] as const) {
    const times = Array.from({ length: opts.kills }, () => rnd.between(3_000, windowMs)).sort((a, b) => a - b);
    for (let k = 1; k < times.length; k++) times[k] = Math.max(times[k], times[k - 1] + 4_000);
    schedule[role] = times.map((at) => ({ at, downMs: rnd.between(500, 3_000) }));
  }
  return schedule;
}
