import {
  type ActivityOptions,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  isCancellation,
  log,
  proxyActivities,
  TemporalFailure,
} from '@temporalio/workflow';
import { applies, PATCHES } from './patches';
import { MCP_PROTOCOL_ERROR } from '../contract';

/**
 * An undo that can travel with a continue-as-new (a closure cannot): an activity by name, with
 * its arguments and options, all plain data. Build it with `undoActivity`.
 */
export interface ActivityUndo {
  activity: string;
  args: unknown[];
  options: ActivityOptions;
}

export type Undo = (() => Promise<unknown>) | ActivityUndo;

/** A registered undo and the name the UI and the failure show for it. */
interface Step {
  name: string;
  undo: Undo;
  /** Its JSON size when it can travel with a continue-as-new (an ActivityUndo), else 0. */
  bytes: number;
}

/**
 * The most the undos that travel with a continue-as-new may weigh, as JSON: every run's input
 * carries all of them, and Temporal refuses a payload over 2 MB (4 MB per blob). A step that
 * would go past this is refused before its forward action runs: the task fails (its steps
 * undone) at the step that broke the budget, not when a later run can no longer start.
 */
export const UNDO_BUDGET_BYTES = 256 * 1024;

/** What a continue-as-new hands to the next run: the undos still registered, newest first. */
export interface CarriedStep {
  name: string;
  undo: ActivityUndo;
}

/**
 * The task's saga: every undo its steps registered and that has not run yet, newest first. It
 * is one stack for the whole task (all `withCompensation` bodies, all runs of a continue-as-new
 * chain), so a cancel undoes every step that took effect, whenever it lands before the task's
 * completion is recorded, the body of `withCompensation` having returned or not.
 */
let saga: Step[] = [];
/** The sum of the saga's `bytes`. */
let sagaBytes = 0;

/** An undo by activity name, so that it can outlive this run (see ActivityUndo). */
export function undoActivity(activity: string, args: unknown[], options: ActivityOptions): ActivityUndo {
  return { activity, args, options };
}

/**
 * A tool's steps with their undos, so a cancel (or a failure) at any moment leaves nothing
 * half-done. The undo of a step is registered BEFORE its forward action runs: a cancel that
 * lands while the step is in flight still undoes it. So undos must be idempotent and a no-op
 * for a step that never took effect, and forward activities should wait for their cancellation
 * to settle (`cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED`) so an
 * undo never runs before its step has finished either way.
 */
export class Compensations {
  async step<T>(forward: () => Promise<T>, undo: Undo, name = `step ${saga.length + 1}`): Promise<T> {
    const bytes = typeof undo === 'function' ? 0 : sizeOf({ name, undo });
    if (sagaBytes + bytes > UNDO_BUDGET_BYTES && applies(PATCHES.boundedUndos)) throw overBudget(name, bytes);
    saga.unshift({ name, undo, bytes });
    sagaBytes += bytes;
    return forward();
  }

  /** Runs every registered undo of the task (see `compensate`). */
  undoAll(): Promise<void> {
    return compensate();
  }
}

/**
 * Runs `body` with the task's Compensations. If it throws (a cancel included), every registered
 * step is undone and the error goes on; a continue-as-new undoes nothing (the steps travel with
 * the run). Steps of a body that returned stay registered until the task ends: a cancel that
 * comes later still undoes them.
 */
export async function withCompensation<T>(body: (steps: Compensations) => Promise<T>): Promise<T> {
  try {
    return await body(new Compensations());
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // a bug fails the workflow task (retried until a fix is deployed): the steps stay for then
    if (!(err instanceof TemporalFailure) && !isCancellation(err) && applies(PATCHES.bugsRetry)) throw err;
    await compensate(err);
    throw err;
  }
}

/**
 * Runs every registered undo, newest first, shielded from the cancellation that called for it.
 * Every undo is attempted; when some fail, the task fails with all their reasons together
 * (`cause`: what made the task compensate, kept in the failure's message).
 */
export async function compensate(cause?: unknown): Promise<void> {
  const failures: Array<{ step: string; reason: string }> = [];
  await CancellationScope.nonCancellable(async () => {
    for (let step = takeStep(); step; step = takeStep()) {
      try {
        await runUndo(step.undo);
      } catch (err) {
        failures.push({ step: step.name, reason: reasonOf(err) });
      }
    }
  });
  if (failures.length === 0) return;
  const why = cause === undefined ? '' : ` after ${isCancellation(cause) ? 'a cancel' : reasonOf(cause)}`;
  const list = failures.map((f) => `${f.step}: ${f.reason}`).join('; ');
  log.error('undos failed', { undoFailures: failures });
  // a protocol error (see protocolError): the task ends failed with this JSON-RPC error and data
  throw undoFailure({
    type: MCP_PROTOCOL_ERROR,
    message: `${failures.length} step(s) could not be undone${why}; they may still be in effect: ${list}`,
    details: [{ code: -32603, data: { undoFailures: failures } }],
    nonRetryable: true,
  });
}

const undoFailures = new WeakSet<object>();

function undoFailure(options: Parameters<typeof ApplicationFailure.create>[0]): ApplicationFailure {
  const failure = ApplicationFailure.create(options);
  undoFailures.add(failure);
  return failure;
}

/** The failure `compensate` throws when some undo failed: the task must end failed with it. */
export function isUndoFailure(err: unknown): boolean {
  return typeof err === 'object' && err !== null && undoFailures.has(err);
}

function takeStep(): Step | undefined {
  const step = saga.shift();
  sagaBytes -= step?.bytes ?? 0;
  return step;
}

function sizeOf(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

function overBudget(name: string, bytes: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'UndoBudgetExceeded',
    message: `${name}'s undo (${bytes} bytes) would take the undos that travel with a continue-as-new to ${sagaBytes + bytes} bytes, over the ${UNDO_BUDGET_BYTES}-byte budget: pass undoActivity a reference (an id), not the data`,
    nonRetryable: true,
  });
}

/** The steps to hand to the next run; refuses an undo that cannot travel (a closure). */
export function carrySteps(): CarriedStep[] {
  const closures = closureSteps();
  if (closures.length > 0) throw closuresCannotTravel(closures);
  return saga.map(({ name, undo }) => ({ name, undo })) as CarriedStep[];
}

/** loop() calls this after every turn: a closure undo is refused at once, not at the first continue-as-new. */
export function checkCarriable(): void {
  const closures = closureSteps();
  if (closures.length > 0 && applies(PATCHES.boundedUndos)) throw closuresCannotTravel(closures);
}

function closureSteps(): string[] {
  return saga.filter((s) => typeof s.undo === 'function').map((s) => s.name);
}

/** A bug in the tool (a TypeError): the workflow task fails, and the task reads stuck with this. */
function closuresCannotTravel(closures: string[]): TypeError {
  return new TypeError(
    `cannot continue as new with undos that are closures (${closures.join(', ')}): register them with undoActivity(name, args, options) so they travel to the next run`,
  );
}

/** Takes over the steps of the previous run (continue-as-new). */
export function restoreSteps(steps: CarriedStep[] | undefined): void {
  saga = (steps ?? []).map((step) => ({ ...step, bytes: sizeOf(step) }));
  sagaBytes = saga.reduce((sum, step) => sum + step.bytes, 0);
}

function runUndo(undo: Undo): Promise<unknown> {
  if (typeof undo === 'function') return undo();
  const activities = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>(undo.options);
  return activities[undo.activity](...undo.args);
}

export function reasonOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : (e.message ?? String(err));
}
