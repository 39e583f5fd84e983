import type { Client } from '@temporalio/client';
import { type CallToolResult, inputResponsesSignal } from '../contract';
import { outstandingAnswers } from './input-responses';
import { OwnedTasks, type TaskPage } from './list/owned-tasks';
import { TaskReads } from './read/task-reads';
import { type RunFollow, type StartTaskInput, TaskStarts } from './start/task-starts';
import type { NamespaceFacts, TaskStoreOptions } from './store-options';
import { OwnerHasher, TaskWrites, TemporalCalls } from './store-parts';
import type { ToolResultSpec } from './task-outcome';
import { isTerminal, type TaskSnapshot } from './task-snapshot';
import { linkToTask } from './trace-context';
import type { HistoryWait } from './watch/history-long-poll';

/**
 * All task state lives in Temporal: this is the one place that knows both vocabularies. A
 * facade over the store's jobs (start/, read/, list/); it answers and cancels tasks itself, and
 * records each such write in `writes`, which readers that keep a task's state look up.
 */
export class TemporalTaskStore {
  private readonly calls: TemporalCalls;
  private readonly starts: TaskStarts;
  private readonly reads: TaskReads;
  private readonly owned: OwnedTasks;
  /** This replica's answers, cancels and terminations, by task (see TaskWrites). */
  readonly writes = new TaskWrites();
  /** Unacknowledged starts, cancelled if they landed. */
  readonly orphans: TaskStarts['orphans'];

  /** `tools` (by name) give results their mapping and outputSchema check; without, `auto` and no check. */
  constructor(client: Client, opts: TaskStoreOptions, tools?: { get(name: string): ToolResultSpec | undefined }) {
    const owners = new OwnerHasher(opts.ownerKey);
    this.calls = new TemporalCalls(client, opts.temporalTimeoutMs);
    this.starts = new TaskStarts(this.calls, owners, opts, tools);
    this.reads = new TaskReads(this.calls, owners, this.writes, opts.stuckCancelGraceMs ?? DEFAULT_STUCK_CANCEL_GRACE_MS, tools);
    this.owned = new OwnedTasks(client, owners, this.calls.bounded, (id, principal) => this.reads.read(id, principal));
    this.orphans = this.starts.orphans;
  }

  /** What the namespace says (retention cap, search attributes), once it could be read. */
  setNamespaceFacts(facts: NamespaceFacts): void {
    this.starts.setNamespaceFacts(facts);
  }

  /** Starts the tool's workflow (TaskStarts.start): resolves once Temporal has acknowledged the start. */
  start(input: StartTaskInput): Promise<TaskSnapshot> {
    return this.starts.start(input);
  }

  /** Tells a run started with claimWithinMs that its handle reached the caller. */
  claim(taskId: string): Promise<void> {
    return this.starts.claim(taskId);
  }

  /** The synchronous path (TaskStarts.run): throws ToolProtocolError for a failed tool. */
  run(input: StartTaskInput, signal?: AbortSignal, follow?: RunFollow): Promise<CallToolResult> {
    return this.starts.run(input, signal, follow);
  }

  /** Stops the orphan sweeper (the server's close). */
  close(): void {
    this.orphans.stop();
  }

  /** The task, or undefined when unknown, expired or another principal's (TaskReads.read). */
  async read(taskId: string, principal?: string): Promise<TaskSnapshot | undefined> {
    const task = await this.reads.read(taskId, principal);
    linkToTask(task); // the request reading it joins the task's trace by a link
    return task;
  }

  /** A watched task from the events that woke its watch, or undefined (TaskReads.fromHistory). */
  fromHistory(last: TaskSnapshot, wake: HistoryWait): Promise<TaskSnapshot | undefined> {
    return this.reads.fromHistory(last, wake);
  }

  /**
   * Answers pending input requests. Keys not outstanding are dropped (no history is written for
   * them); an answer that does not fit its request throws InputResponseError and nothing is sent.
   * The ack comes once Temporal has recorded the signal: no worker is needed.
   */
  async sendInput(taskId: string, principal: string | undefined, responses: Record<string, unknown>): Promise<TaskSnapshot | undefined> {
    const task = await this.read(taskId, principal);
    if (!task || task.state.status !== 'input_required') return task;
    const answers = outstandingAnswers(taskId, task.state.inputRequests, responses);
    if (Object.keys(answers).length === 0) return task;
    const delivered = await this.calls.toRunning(taskId, (h) => h.signal(inputResponsesSignal, answers));
    this.writes.record(taskId);
    return delivered ? task : this.read(taskId, principal); // it closed meanwhile: its closed state, not the stale one
  }

  /** One page of the caller's tasks (2025-11-25 tasks/list): see OwnedTasks. */
  listOwned(principal: string, cursor?: string, pageSize = 50): Promise<TaskPage> {
    return this.owned.page(principal, cursor, pageSize);
  }

  /** The caller's running tasks that wait for input, newest first, at most `limit` (OwnedTasks.waiting). */
  listWaiting(principal: string, limit = 50): Promise<TaskSnapshot[]> {
    return this.owned.waiting(principal, limit);
  }

  /**
   * Requests cooperative cancellation and answers the task as it now is: cancelling (the
   * workflow stops and undoes its steps), or its end when it ended first. A stuck task gets the
   * same request: it undoes its steps if it runs again; if it still fails a grace period after
   * the request, a later read terminates it (StuckTasks.cancelVerdict). Undefined when unknown.
   * `before`: the task as the caller has just read it (then not read again).
   */
  async cancel(taskId: string, principal?: string, before?: TaskSnapshot): Promise<TaskSnapshot | undefined> {
    const task = before ?? (await this.read(taskId, principal));
    if (!task || isTerminal(task)) return task;
    // Temporal accepts a cancel request for a workflow that has just completed, and ignores it:
    // only a read after the request tells a cancelling task from one that ended first
    await this.calls.toRunning(taskId, (h) => h.cancel().then(() => undefined));
    this.writes.record(taskId);
    return this.read(taskId, principal);
  }
}

const DEFAULT_STUCK_CANCEL_GRACE_MS = 60_000;
