/**
 * Input during a task: requests published as the task's inputRequests (tasks/get shows them),
 * answered by tasks/update through the runtime's signal handler, optionally with one deadline.
 */
import { ApplicationFailure, condition, workflowInfo } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { type ElicitResult, type InputRequest, type RequestedSchema, TASK_MEMO_KEY, type TaskMemo } from '../contract';
import { applies, PATCHES } from './patches';
import { isPending, publishInputs, runtime } from './runtime';

/**
 * Asks the client for input during the task and waits for the answer (any duration).
 * Keys are unique for the task's whole life.
 */
export async function requestInput<R = unknown>(key: string, request: InputRequest, opts: InputOptions = {}): Promise<R> {
  return (await requestInputs({ [key]: request }, opts))[key] as R;
}

export interface InputOptions {
  /** Withdraw the requests after this long (ms or a duration string), one deadline for all of them; the wait then throws InputTimeout. */
  timeout?: Duration;
}

/**
 * The input requests were withdrawn unanswered after their timeout. A Temporal failure: a tool
 * that does not catch it ends `failed` with this message (it is an outcome, not a bug).
 */
export class InputTimeout extends ApplicationFailure {
  constructor(readonly keys: string[]) {
    super(`no answer for ${keys.join(', ')} in time`, INPUT_TIMEOUT, true);
  }

  // ApplicationFailure's instanceof matches every ApplicationFailure: this one matches by type
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof ApplicationFailure && value.type === INPUT_TIMEOUT;
  }
}
/** The failure type of an input timeout in every language (docs/contract.md). */
const INPUT_TIMEOUT = 'InputTimeout';
/** The class's name before the contract's one was adopted. */
export const InputTimeoutError = InputTimeout;

/**
 * Nobody answered within the server's limit (TaskMemo.answerWithinMs): the task ends failed, its
 * undos run. Not an InputTimeout, so a tool that handles its own timeouts does not take it as one.
 */
export const UNANSWERED = 'McpTaskUnanswered';

function unanswered(keys: string[], withinMs: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: UNANSWERED,
    nonRetryable: true,
    message: `nobody answered ${keys.join(', ')} within ${withinMs} ms: the task ends, as nobody is left to answer it`,
  });
}

/** The server's limit on an unanswered wait, for tasks started with one (TaskMemo.answerWithinMs). */
function answerLimitMs(): number | undefined {
  const within = (workflowInfo().memo?.[TASK_MEMO_KEY] as TaskMemo | undefined)?.answerWithinMs;
  return typeof within === 'number' && within > 0 && applies(PATCHES.answerDeadline) ? within : undefined;
}

/**
 * Asks several questions at once; resolves when all are answered (partial answers keep waiting).
 * Requests still unanswered when the wait ends otherwise (a timeout, a cancelled scope) are
 * withdrawn: their keys leave inputRequests and a late answer is ignored as not outstanding.
 */
export async function requestInputs(requests: Record<string, InputRequest>, opts: InputOptions = {}): Promise<Record<string, unknown>> {
  const s = runtime();
  const keys = Object.keys(requests);
  // a key still pending from before a continue-as-new is waited on, not asked again
  // (or already answered: partial answers stay in `responses` until all are in, so a run that
  // continued as new mid-wait carries them)
  const fresh = keys.filter((key) => !isPending(s, key) && !s.responses.has(key));
  for (const key of fresh) {
    if (s.usedKeys.has(key)) throw new Error(`input key "${key}" was already used in this task`);
    s.usedKeys.add(key);
  }
  if (fresh.length) publishInputs({ ...s.progress.inputRequests, ...Object.fromEntries(fresh.map((k) => [k, requests[k]])) });
  const answers: Record<string, unknown> = {};
  const open = () => keys.filter((k) => !Object.hasOwn(answers, k));
  // the tool's own timeout, unless the server's limit comes first
  const limit = answerLimitMs();
  const ownFirst = limit === undefined || (opts.timeout !== undefined && msToNumber(opts.timeout) <= limit);
  const wait = answersWait(ownFirst ? opts.timeout : limit);
  try {
    while (open().length > 0) {
      const arrived = await wait(() => open().some((k) => s.responses.has(k)));
      if (!arrived) throw ownFirst ? new InputTimeout(open()) : unanswered(open(), limit);
      for (const k of open()) if (s.responses.has(k)) answers[k] = s.responses.get(k);
      publishInputs(without(s.progress.inputRequests, Object.keys(answers)));
    }
  } finally {
    for (const k of Object.keys(answers)) s.responses.delete(k); // consumed (or dropped with the rest)
    if (open().length > 0) publishInputs(without(s.progress.inputRequests, open())); // withdrawn
  }
  return answers;
}

/**
 * How requestInputs waits for the next answer: for ever, or until the timeout's deadline,
 * counted once from the first wait (builds before PATCHES.inputDeadline waited the whole
 * timeout again after each partial answer).
 */
function answersWait(timeout: Duration | undefined): (answered: () => boolean) => Promise<boolean> {
  if (timeout === undefined) return async (answered) => (await condition(answered), true);
  if (!applies(PATCHES.inputDeadline)) return (answered) => condition(answered, timeout);
  const deadline = Date.now() + msToNumber(timeout); // workflow time: deterministic on replay
  return async (answered) => {
    const remaining = deadline - Date.now();
    return remaining > 0 ? condition(answered, remaining) : answered();
  };
}

function without<V>(record: Record<string, V>, keys: string[]): Record<string, V> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}

/**
 * A form elicitation: the common case of requestInput. With a timeout, an unanswered request
 * is withdrawn and reads as the client's `cancel`.
 */
export async function elicit(
  key: string,
  message: string,
  requestedSchema: RequestedSchema,
  opts: InputOptions = {},
): Promise<ElicitResult> {
  try {
    return (await requestInputs({ [key]: { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } } }, opts))[
      key
    ] as ElicitResult;
  } catch (err) {
    if (err instanceof InputTimeout) return { action: 'cancel' };
    throw err;
  }
}
