/**
 * Runs one generated case through real MCP requests: the task is started with tools/call, the
 * schedule's events are sent at their moments, then every question still open is answered
 * until the task ends or reads stuck (or the bound passes). Requests ride out a server restart.
 */
import type { Client } from '@temporalio/client';
import { TemporalTaskStore } from '../../src/tasks';
import { call, createTask, type Revision, RpcError } from '../support/mcp-client';
import { type GeneratedCase, type GeneratedEvent, UNASKED_KEYS } from './model';

/** What a case runs against; a stack of either tier provides it. */
export interface CaseEnv {
  client: Client;
  /** The worker's task queue: a guarded run is started on it directly, as the server starts a call from a client without Tasks. */
  taskQueue: string;
  ledgerDir: string;
  /** The MCP endpoint now (it changes when the server restarts). */
  url(): string;
  restartServer(): Promise<void>;
  /** Process tier only: SIGKILL of the worker, and a new one started. */
  killWorker?(): Promise<void>;
  /** How long a task may take to end (or read stuck) after its schedule. */
  boundMs: number;
  /** The interpreter tool the programs run as (default `generated_program`; another language's twin has its own). */
  tool?: string;
}

/** What the schedule did to the task, as the invariants need it. */
export interface Sent {
  cancel: Revision[];
  /** How tasks/update of keys never asked was answered (answerUnasked): `accepted`, or the JSON-RPC error. */
  unasked?: string;
}

export interface Ran {
  taskId: string;
  sent: Sent;
  /** How the run ended: the task read terminal or stuck, or neither within the bound. */
  reading: 'terminal' | 'stuck' | 'timeout';
  lastRead?: any;
}

export async function runCase(env: CaseEnv, c: GeneratedCase): Promise<Ran> {
  const taskId =
    c.claimWithinMs === undefined
      ? await retrying(env, (url) => createTask(url, env.tool ?? 'generated_program', { ...c.program }))
      : await startGuarded(env, c, c.claimWithinMs);
  const started = Date.now();
  const sent: Sent = { cancel: [] };
  for (const event of c.events) {
    await sleep(started + event.atMs - Date.now());
    await sendEvent(env, taskId, event, sent);
  }
  // a guarded run's questions wait past its deadline: unclaimed by then, the guard must end it
  if (c.claimWithinMs !== undefined) await sleep(started + c.claimWithinMs + 200 - Date.now());
  return { taskId, sent, ...(await drain(env, taskId)) };
}

async function sendEvent(env: CaseEnv, taskId: string, event: GeneratedEvent, sent: Sent): Promise<void> {
  switch (event.kind) {
    case 'cancel':
      sent.cancel.push(event.revision);
      await cancel(env, taskId, event.revision);
      return;
    case 'answer': {
      const open = await outstanding(env, taskId);
      const picked = open.filter((_, i) => event.pick[i % event.pick.length]);
      if (picked.length) await answer(env, taskId, picked);
      return;
    }
    case 'answerUnasked': {
      const inputResponses = Object.fromEntries(UNASKED_KEYS.map((k) => [k, { action: 'accept', content: { value: k } }]));
      sent.unasked = await retrying(env, (url) => call(url, 'tasks/update', { taskId, inputResponses })).then(
        () => 'accepted',
        (err) => (err instanceof RpcError ? `refused ${err.code}: ${err.message}` : Promise.reject(err)),
      );
      return;
    }
    case 'cancelRacingAnswer': {
      const open = await outstanding(env, taskId);
      sent.cancel.push('2026-07-28');
      await Promise.all([answer(env, taskId, open), cancel(env, taskId, '2026-07-28')]);
      return;
    }
    case 'restartServer':
      return env.restartServer();
    case 'killWorker':
      return env.killWorker?.();
    case 'claim':
      return storeOf(env).claim(taskId);
  }
}

const stores = new WeakMap<CaseEnv, TemporalTaskStore>();
/** The store a server would use (its history limit as low as the tiers' server's). */
function storeOf(env: CaseEnv): TemporalTaskStore {
  const options = { taskQueue: env.taskQueue, ttlMs: 60 * 60_000, temporalTimeoutMs: 10_000, historyLimit: 10, searchAttributes: true };
  if (!stores.has(env)) stores.set(env, new TemporalTaskStore(env.client, options));
  return stores.get(env)!;
}

/** The program's run as a call from a client without Tasks starts it: guarded, unclaimed; a `claim` event claims it. */
async function startGuarded(env: CaseEnv, c: GeneratedCase, claimWithinMs: number): Promise<string> {
  const { taskId } = await storeOf(env).start({
    tool: 'generated_program',
    workflowType: 'generatedProgram',
    arguments: { ...c.program },
    summary: 'a generated program, guarded for its claim',
    claimWithinMs,
  });
  return taskId;
}

/** Answers every question still open until the task ends or reads stuck, within the bound. */
async function drain(env: CaseEnv, taskId: string): Promise<Omit<Ran, 'taskId' | 'sent'>> {
  const deadline = Date.now() + env.boundMs;
  let task: any;
  while (Date.now() < deadline) {
    task = await retrying(env, (url) => call(url, 'tasks/get', { taskId }));
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return { reading: 'terminal', lastRead: task };
    if (isStuck(task)) return { reading: 'stuck', lastRead: task };
    if (task.status === 'input_required') await answer(env, taskId, Object.keys(task.inputRequests ?? {}));
    await sleep(50);
  }
  return { reading: 'timeout', lastRead: task };
}

export const isStuck = (task: any): boolean => typeof task?.statusMessage === 'string' && task.statusMessage.startsWith('stuck');

async function outstanding(env: CaseEnv, taskId: string): Promise<string[]> {
  const task = await retrying(env, (url) => call(url, 'tasks/get', { taskId }));
  return task.status === 'input_required' ? Object.keys(task.inputRequests ?? {}) : [];
}

/** tasks/update of these keys; refused when the task moved on meanwhile (ended, withdrew the question): fine. */
async function answer(env: CaseEnv, taskId: string, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  const inputResponses = Object.fromEntries(keys.map((k) => [k, { action: 'accept', content: { value: `answer to ${k}` } }]));
  await retrying(env, (url) => call(url, 'tasks/update', { taskId, inputResponses })).catch((err) => {
    if (!(err instanceof RpcError) || err.code === -32603) throw err;
  });
}

/** tasks/cancel; 2025-11-25 refuses it for a task that already ended (that revision's rule): fine. */
async function cancel(env: CaseEnv, taskId: string, revision: Revision): Promise<void> {
  await retrying(env, (url) => call(url, 'tasks/cancel', { taskId }, { revision })).catch((err) => {
    if (!(err instanceof RpcError) || revision !== '2025-11-25' || !/already/.test(err.message)) throw err;
  });
}

/**
 * A request through the server of the moment: while it restarts (connection refused, no answer,
 * or the store unreachable for a moment, -32603) the request is sent again, for up to 15 s.
 */
export async function retrying<T>(env: CaseEnv, request: (url: string) => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const result = await request(env.url());
      // no JSON-RPC answer at all: a server on its way down (HTTP 503 with no body)
      if (result === undefined) throw new Error('no answer from the server');
      return result;
    } catch (err) {
      const transient = !(err instanceof RpcError) || err.code === -32603;
      if (!transient || Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
