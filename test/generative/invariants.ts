/**
 * The invariants checked after every generated case:
 * - every reader agrees: tasks/get in both revisions, McpTaskStatus, Temporal's status (by the
 *   table of docs/contract.md; 2025-11-25 reads `cancelled` from a tasks/cancel on, even when
 *   an undo failed or the task still runs, unless it completed first: that revision's rule);
 * - `cancelled` only when a cancel was requested, and then every applied step is undone;
 *   `completed` ⇒ no undo ran; no effect applied twice (the ledger);
 * - every task ends, or reads stuck with its reason (only a program with a bug may), within the bound;
 * - only outstanding keys are answers: a tasks/update keyed `constructor`, `toString`… sends nothing to the workflow;
 * - where the program alone decides the end (modelEnd), the task ends that way;
 * - a guarded run (claimWithinMs) ends unclaimed only when no claim was recorded by its deadline,
 *   with every step undone that can be; never claimed nor cancelled, it cannot end completed or
 *   cancelled after its deadline (the history's times; see GuardReading).
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import fs from 'node:fs';
import path from 'node:path';
import { inputResponsesSignal, MCP_TASK_STATUS } from '../../src/contract';
import type { LedgerLine } from '../fixtures/generated-activities';
import { EventType, eventTime, signalNamed } from '../support/claim-history';
import { call } from '../support/mcp-client';
import { type GeneratedCase, mayBeStuck, modelEnd, UNASKED_KEYS, undoableSteps } from './model';
import { type CaseEnv, isStuck, type Ran, retrying, sleep } from './runner';

/** Temporal's close status → the task's status (docs/contract.md). */
export const CLOSE_STATUS_TABLE: Record<string, string> = {
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  TERMINATED: 'failed',
  TIMED_OUT: 'failed',
};

export interface Readings {
  temporal: string;
  rev2026: any;
  rev2025: any;
  mcpTaskStatus: string | undefined;
  /** The keys of every tasks/update signal the workflow got, in all runs (read only after an answerUnasked). */
  signalledKeys?: string[];
  /** A guarded run's history, as the guard saw it. */
  guard?: GuardReading;
}

/** Times (ms since the epoch, Temporal's clock) of what decides a guarded run's end. */
export interface GuardReading {
  /** The first workflow task's start (the guard's workflow time when armed) + claimWithinMs. */
  deadlineMs: number;
  claimedMs?: number;
  cancelRequestedMs?: number;
  closedMs?: number;
}

/** How far from its deadline a claim or cancel must be recorded for the test to say which side it fell on. */
const GUARD_MARGIN_MS = 100;

/** Reads the task from every reader, once Temporal has closed it (a terminal tasks/get waits for that, briefly). */
export async function readAll(env: CaseEnv, ran: Ran, claimWithinMs?: number): Promise<Readings> {
  const handle = env.client.workflow.getHandle(ran.taskId);
  let description: WorkflowExecutionDescription = await handle.describe();
  for (const until = Date.now() + 5_000; ran.reading === 'terminal' && description.status.name === 'RUNNING' && Date.now() < until;) {
    await sleep(100);
    description = await handle.describe();
  }
  const rev2026 = await retrying(env, (url) => call(url, 'tasks/get', { taskId: ran.taskId }));
  const reply2025 = await retrying(env, (url) => call(url, 'tasks/get', { taskId: ran.taskId }, { revision: '2025-11-25' }));
  const attribute = (description.searchAttributes as Record<string, unknown[] | undefined>)[MCP_TASK_STATUS.name];
  const signalledKeys = ran.sent.unasked ? await signalledKeysOf(env, ran.taskId, description.runId) : undefined;
  const guard = claimWithinMs === undefined ? undefined : await guardReading(env, ran.taskId, description.runId, claimWithinMs);
  return {
    temporal: description.status.name,
    rev2026,
    rev2025: reply2025?.task ?? reply2025,
    mcpTaskStatus: attribute?.[0] as string | undefined,
    signalledKeys,
    ...(guard ? { guard } : {}),
  };
}

async function guardReading(env: CaseEnv, taskId: string, lastRunId: string, claimWithinMs: number): Promise<GuardReading> {
  const runs = await chainHistories(env, taskId, lastRunId); // newest first
  const events = runs.flatMap((h) => h.events ?? []).sort((a, b) => eventTime(a) - eventTime(b));
  const firstTask = runs.at(-1)?.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const claimed = signalNamed(events, 'mcp.claimed');
  const cancel = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED);
  const last = runs[0]?.events?.at(-1);
  const closed =
    last && /^EVENT_TYPE_WORKFLOW_EXECUTION_(COMPLETED|FAILED|CANCELED|TERMINATED|TIMED_OUT)$/.test(EventType[last.eventType!]);
  return {
    deadlineMs: eventTime(firstTask!) + claimWithinMs,
    ...(claimed ? { claimedMs: eventTime(claimed) } : {}),
    ...(cancel ? { cancelRequestedMs: eventTime(cancel) } : {}),
    ...(closed ? { closedMs: eventTime(last) } : {}),
  };
}

/** The keys of the `mcp.inputResponses` signals of every run of the chain. */
async function signalledKeysOf(env: CaseEnv, taskId: string, lastRunId: string): Promise<string[]> {
  const keys: string[] = [];
  for (const history of await chainHistories(env, taskId, lastRunId)) {
    for (const event of history.events ?? []) {
      const signal = event.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName !== inputResponsesSignal.name) continue;
      const data = signal.input?.payloads?.[0]?.data;
      if (data) keys.push(...Object.keys(JSON.parse(Buffer.from(data).toString('utf8')) ?? {}));
    }
  }
  return keys;
}

/** The histories of every run of a continue-as-new chain, newest first (each run names the one it continued). */
export async function chainHistories(env: CaseEnv, taskId: string, lastRunId?: string): Promise<History[]> {
  const runs: History[] = [];
  for (let runId: string | undefined = lastRunId ?? (await env.client.workflow.getHandle(taskId).describe()).runId; runId;) {
    const history: History = await env.client.workflow.getHandle(taskId, runId).fetchHistory();
    runs.push(history);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

export function readLedger(dir: string, taskId: string): LedgerLine[] {
  const file = path.join(dir, 'effects.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerLine)
    .filter((l) => l.taskId === taskId);
}

/** Every invariant the case broke, in words (empty: it held). */
export function violations(c: GeneratedCase, ran: Ran, r: Readings, ledger: LedgerLine[]): string[] {
  const out: string[] = [];
  const cancelSent = ran.sent.cancel.length > 0;
  if (ran.reading === 'timeout')
    out.push(
      `the task neither ended nor read stuck within the bound (tasks/get: ${r.rev2026.status} "${r.rev2026.statusMessage ?? ''}", Temporal ${r.temporal})`,
    );
  if (ran.reading === 'stuck' && !mayBeStuck(c.program))
    out.push(`the task reads stuck without a bug in the program: "${r.rev2026.statusMessage}"`);
  out.push(...readersAgree(r, cancelSent));
  const status = r.rev2026.status;
  if (status === 'cancelled' && !cancelSent)
    out.push("tasks/get reads cancelled, but nobody requested a cancel (a timeout or an inner scope is the tool's own failure)");
  const claimedInTime = r.guard?.claimedMs !== undefined && r.guard.claimedMs < r.guard.deadlineMs - GUARD_MARGIN_MS;
  const expected = r.guard && !claimedInTime ? undefined : modelEnd(c);
  const end = isStuck(r.rev2026) ? 'stuck' : status;
  if (expected && end !== expected) out.push(`the program must end ${expected} (no cancel, no timer racing), it reads ${end}`);
  out.push(...ledgerHolds(status, ledger));
  out.push(...onlyOutstandingKeys(ran, r));
  if (r.guard) out.push(...guardHolds(c, r, r.guard, ledger));
  return out;
}

/** The claim guard's end agrees with the history's times, and with the ledger. */
function guardHolds(c: GeneratedCase, r: Readings, g: GuardReading, ledger: LedgerLine[]): string[] {
  const out: string[] = [];
  const unclaimed = /nobody claimed the task/.test(JSON.stringify(r.rev2026));
  const claimedBy = g.claimedMs === undefined ? undefined : g.claimedMs - g.deadlineMs; // < 0: before the deadline
  if (unclaimed && claimedBy !== undefined && claimedBy < -GUARD_MARGIN_MS)
    out.push(`ended unclaimed, but its claim was recorded ${-claimedBy} ms before the deadline`);
  // a claim or a cancel recorded after the deadline may still reach the workflow task that handles
  // it (a worker down, a continued run's first task held back), and then wins: only without either
  const lateEnd = g.closedMs !== undefined && g.closedMs > g.deadlineMs + 1_000;
  if (g.claimedMs === undefined && g.cancelRequestedMs === undefined && lateEnd && !mayBeStuck(c.program) && r.rev2026.status !== 'failed')
    out.push(`never claimed nor cancelled, it ended ${g.closedMs! - g.deadlineMs} ms after its deadline, yet it reads ${r.rev2026.status}`);
  if (unclaimed) {
    const applied = new Set(ledger.filter((l) => l.kind === 'apply').map((l) => l.name));
    const undone = new Set(ledger.filter((l) => l.kind === 'undo').map((l) => l.name));
    const undoable = new Set(undoableSteps(c.program.ops));
    const left = [...applied].filter((n) => undoable.has(n.split('#')[0]) && !undone.has(n)); // s1#2: s1 in turn 2
    if (left.length) out.push(`ended unclaimed, but applied steps were not undone: ${left.join(', ')}`);
  }
  return out;
}

/** Keys the task never asked are not answers: refused or ignored with a clear reply, never sent to the workflow. */
function onlyOutstandingKeys(ran: Ran, r: Readings): string[] {
  const out: string[] = [];
  if (ran.sent.unasked?.startsWith('refused -32603'))
    out.push(`tasks/update of keys never asked failed inside the server: ${ran.sent.unasked}`);
  const delivered = (r.signalledKeys ?? []).filter((k) => UNASKED_KEYS.includes(k));
  if (delivered.length) out.push(`keys never asked reached the workflow as answers: ${[...new Set(delivered)].join(', ')}`);
  return out;
}

function readersAgree(r: Readings, cancelSent: boolean): string[] {
  const out: string[] = [];
  const said = `tasks/get 2026 ${r.rev2026.status}, 2025 ${r.rev2025?.status}, McpTaskStatus ${r.mcpTaskStatus}, Temporal ${r.temporal}`;
  // 2025-11-25's rule: a task reads cancelled from its tasks/cancel on, unless it completed first
  const rule2025 = r.rev2025?.status === 'cancelled' && cancelSent && r.temporal !== 'COMPLETED';
  if (r.temporal === 'RUNNING') {
    // a stuck (or unfinished) task: no reader may call it ended
    const ended = [r.rev2026.status, rule2025 ? undefined : r.rev2025?.status, r.mcpTaskStatus].filter((s) =>
      ['completed', 'failed', 'cancelled'].includes(s),
    );
    if (ended.length) out.push(`readers disagree on a running task: ${said}`);
    return out;
  }
  const expected = CLOSE_STATUS_TABLE[r.temporal];
  // TERMINATED / TIMED_OUT: no workflow code ran to write McpTaskStatus, which keeps its last
  // running value (docs/contract.md, "The end of a task"); it must not claim another end
  const unwritten =
    (r.temporal === 'TERMINATED' || r.temporal === 'TIMED_OUT') && !['completed', 'cancelled'].includes(r.mcpTaskStatus ?? '');
  if (r.rev2026.status !== expected || (r.mcpTaskStatus !== expected && !unwritten) || (r.rev2025?.status !== expected && !rule2025))
    out.push(`readers disagree: ${said} (the table says ${expected})`);
  return out;
}

function ledgerHolds(status: string, ledger: LedgerLine[]): string[] {
  const out: string[] = [];
  const seen = new Map<string, number>();
  for (const l of ledger) seen.set(`${l.kind} ${l.name}`, (seen.get(`${l.kind} ${l.name}`) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
  if (twice.length) out.push(`effects applied more than once: ${twice.join(', ')}`);
  const applied = ledger.filter((l) => l.kind === 'apply').map((l) => l.name);
  const undone = new Set(ledger.filter((l) => l.kind === 'undo').map((l) => l.name));
  if (status === 'cancelled') {
    const left = applied.filter((n) => !undone.has(n));
    if (left.length) out.push(`cancelled, but applied steps were not undone: ${left.join(', ')}`);
  }
  if (status === 'completed' && undone.size) out.push(`completed, but undos ran: ${[...undone].join(', ')}`);
  return out;
}
