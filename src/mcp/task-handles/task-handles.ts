/**
 * Durable task handles for callers that do not speak Tasks (Claude Code, Cursor, plain SDK
 * clients): a call of a tool that runs as a task starts its workflow and waits a bounded time; a task still
 * running then is answered by an ordinary CallToolResult that names its taskId (the handle), and
 * the task tools (wait, respond, cancel, list; listed only to such callers) follow it. Same store
 * calls, same checks and the same single Temporal read per taskId as tasks/*.
 */
import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult } from '../../contract';
import { InputResponseError, isTaskId, isTerminal, logger, type StartTaskInput, taskLog } from '../../tasks';
import type { ToolDefinition } from '../../tool-definition';
import type { McpContext } from '../context';
import { principalOf } from '../core/negotiation';
import type { CallSite } from '../revision';
import { CallFollow, REQUEST_STATE_PREFIX } from './call-follow';
import { CallRetries } from './call-retries';
import type { FollowOutcome } from './follow';
import { errorResult, notFoundResult, outcomeResult, refusalNote, syncOutcome, type TaskToolNames, taskToolNames } from './handle-text';
import { progressTokenOf } from './progress-notifier';
import { listTasks } from './task-list';
import { seconds, taskToolDefinitions } from './task-tools';

/** A user tool whose name is a task tool's: refused at start, so the two never clash silently. */
export class TaskToolNameClashError extends Error {
  constructor(name: string) {
    super(`tool "${name}" has the name of a task tool: set another taskToolsPrefix (--task-tools-prefix / MCP_TASK_TOOLS_PREFIX)`);
  }
}

export class TaskHandles {
  readonly names: TaskToolNames;
  private readonly tools: Map<string, ToolDefinition>;
  private readonly retries: CallRetries;
  private readonly calls: CallFollow;

  /** `userTools`: the names of the server's own tools, none of which may be a task tool's. */
  constructor(
    private readonly mcp: McpContext,
    userTools: string[],
  ) {
    this.names = taskToolNames(mcp.config.taskToolsPrefix);
    this.retries = new CallRetries(mcp.config.retryGraceMs ?? 0);
    this.calls = new CallFollow(mcp, this.names);
    this.tools = new Map(taskToolDefinitions(this.names, mcp.config.handleWaitMs, mcp.listing).map((t) => [t.name, t]));
    if (!mcp.config.taskHandles) this.tools.clear();
    for (const name of userTools) if (this.tools.has(name)) throw new TaskToolNameClashError(name);
  }

  /** Whether a call of `tool` from a caller without Tasks is answered with a handle. */
  servesHandle(tool: ToolDefinition): boolean {
    const s = this.mcp.config;
    if (!s.taskHandles || tool.local || tool.taskMode === 'never') return false;
    return !(tool.taskMode === 'required' && s.requiredToolsNeedTasks);
  }

  /** The task tools (empty when handles are off), for tools/list and lookup. */
  taskTools(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  taskTool(name: unknown): ToolDefinition | undefined {
    return typeof name === 'string' ? this.tools.get(name) : undefined;
  }

  /** The description a caller without Tasks reads: how to follow a handle. */
  describeForHandles(tool: ToolDefinition): string {
    const n = this.names;
    return `${tool.description}\n\nRuns as a durable task. When it takes longer than ${seconds(this.mcp.config.handleWaitMs)} or needs an answer from the user, it returns a task handle (taskId, status, any questions) instead of its result: follow it with ${n.wait}, answer questions with ${n.respond}, stop it with ${n.cancel}.`;
  }

  /**
   * A call from a caller without Tasks: start the workflow, follow it a bounded time, answer
   * its result or a handle. A retry carrying our requestState continues that task; an identical
   * call within the retry grace (a client that timed out and called again) attaches to the task
   * the earlier call started. Dropped before any answer: a call that asked for progress keeps its
   * task (the notifications named it); a dedupable one leaves it for such a retry (unclaimed, the
   * claim guard ends it after the grace); any other is cancelled.
   */
  async callWithHandle(input: StartTaskInput, ctx: ServerContext, site: CallSite, tool?: ToolDefinition): Promise<unknown> {
    const state = ctx.mcpReq.requestState();
    if (typeof state === 'string' && state.startsWith(REQUEST_STATE_PREFIX))
      return this.wait(state.slice(REQUEST_STATE_PREFIX.length), ctx, site, true, true);
    const dedupe = this.retries.enabled && tool?.dedupe !== false;
    const followed = progressTokenOf(ctx) !== undefined;
    // the place is taken before the start: a call refused by the limit starts nothing
    const release = this.mcp.limits.reserve(principalOf(ctx));
    let outcome: FollowOutcome;
    let taskId: string;
    try {
      taskId = (dedupe && (await this.attachable(input, ctx))) || (await this.startFor(input, dedupe));
      // progress notifications name the task: it reaches the caller with the first, so it is claimed now and outlives the call
      if (followed) await this.mcp.store.claim(taskId);
      if (ctx.mcpReq.signal.aborted) return await this.dropped(taskId, input.owner, dedupe || followed);
      outcome = await this.calls.follow(taskId, ctx, site, true);
    } finally {
      release();
    }
    if (outcome.kind === 'aborted') return this.dropped(taskId, input.owner, dedupe || followed);
    if (outcome.kind === 'gone') return notFoundResult();
    if (dedupe) this.retries.answered(input, taskId);
    if (isTerminal(outcome.task)) return syncOutcome(outcome.task);
    // the handle is about to reach its caller: from now on the run is reachable, so it must not cancel itself
    await this.mcp.store.claim(taskId);
    return this.calls.answerPending(outcome.task, ctx, site, true);
  }

  /** The task of an earlier identical call that is still readable (an expired or unknown one: none). */
  private async attachable(input: StartTaskInput, ctx: ServerContext): Promise<string | undefined> {
    const taskId = this.retries.earlier(input);
    if (!taskId || !(await this.mcp.store.read(taskId, principalOf(ctx)))) return undefined;
    logger.info({ event: 'task.retry.attached', taskId, tool: input.tool }, 'a retry of an identical call attaches to its task');
    return taskId;
  }

  private async startFor(input: StartTaskInput, dedupe: boolean): Promise<string> {
    const task = await this.mcp.store.start({ ...input, claimWithinMs: this.claimWithinMs(dedupe) });
    taskLog(task).info({ event: 'task.created', handle: true }, 'task created for a caller without Tasks');
    if (dedupe) this.retries.started(input, task.taskId);
    return task.taskId;
  }

  /**
   * How long a run waits for its handle to be claimed: the bounded wait plus a grace for a slow
   * answer, or (dedupable) plus the retry grace, so a retry at its end can still follow and claim it.
   */
  private claimWithinMs(dedupe: boolean): number {
    const wait = this.mcp.config.handleWaitMs;
    return wait + (dedupe ? Math.max(this.mcp.config.retryGraceMs ?? 0, 5_000) : Math.min(30_000, Math.max(5_000, wait)));
  }

  /** A task tool's call. */
  async serve(tool: ToolDefinition, args: Record<string, unknown>, ctx: ServerContext, site: CallSite): Promise<unknown> {
    switch (tool.name) {
      case this.names.wait:
        return this.wait(args.taskId as string, ctx, site, false, true, args.waitMs as number | undefined);
      case this.names.respond:
        return this.respond(args.taskId as string, args.responses as Record<string, unknown>, ctx, site);
      case this.names.cancel:
        return this.cancel(args.taskId as string, ctx);
      default:
        return listTasks(this.mcp.store, this.names, args.cursor as string | undefined, principalOf(ctx));
    }
  }

  /**
   * `applyRetry`: answers of an input_required round this call retries go to the task first.
   * A dismissed form (`cancel`) is no answer, as on 2025: not sent, and not asked again in this
   * call (the handle shows it), so a client that dismisses forms cannot loop.
   */
  private async wait(
    taskId: string,
    ctx: ServerContext,
    site: CallSite,
    viaRetry: boolean,
    applyRetry: boolean,
    waitMs?: number,
  ): Promise<unknown> {
    const all = applyRetry ? (ctx.mcpReq.inputResponses ?? {}) : {};
    const responses = Object.fromEntries(Object.entries(all).filter(([, r]) => (r as { action?: unknown } | null)?.action !== 'cancel'));
    let refusal: InputResponseError | undefined;
    if (Object.keys(responses).length > 0) {
      // an answer that does not fit is asked again below (with why), never a dead end without the task
      const refused = await this.apply(taskId, responses, ctx, false).catch((err: unknown) => {
        if (!(err instanceof InputResponseError)) throw err;
        refusal = err;
        return undefined;
      });
      if (refused) return refused;
    }
    const outcome = await this.calls.follow(taskId, ctx, site, false, waitMs);
    if (outcome.kind === 'gone') return notFoundResult();
    if (outcome.kind === 'aborted') return errorResult('The wait was cancelled; the task goes on.');
    if (isTerminal(outcome.task)) {
      this.calls.ended(outcome.task, ctx);
      return outcomeResult(outcome.task);
    }
    const dismissed = Object.keys(all).length > Object.keys(responses).length;
    return dismissed ? this.calls.handle(outcome.task, ctx) : this.calls.answerPending(outcome.task, ctx, site, viaRetry, refusal);
  }

  /** A refused answer: the handle says why (the taskId in it keeps the task reachable). */
  private async respond(taskId: string, responses: Record<string, unknown>, ctx: ServerContext, site: CallSite): Promise<unknown> {
    try {
      const refused = await this.apply(taskId, responses, ctx, true);
      if (refused) return refused;
    } catch (err) {
      if (!(err instanceof InputResponseError)) throw err;
      const task = await this.mcp.store.read(taskId, principalOf(ctx));
      if (!task || isTerminal(task)) return task ? outcomeResult(task) : notFoundResult();
      return { ...this.calls.handle(task, ctx, refusalNote(err)), isError: true };
    }
    return this.wait(taskId, ctx, site, false, false);
  }

  /**
   * Answers like tasks/update (an answer that does not fit throws InputResponseError: the caller
   * asks again). `strict` (respond): answering nothing that is pending is a mistake worth telling the model.
   */
  private async apply(
    taskId: string,
    responses: Record<string, unknown>,
    ctx: ServerContext,
    strict: boolean,
  ): Promise<CallToolResult | undefined> {
    if (!isTaskId(taskId)) return notFoundResult();
    if (Object.keys(responses).length === 0)
      return errorResult("No answers given: responses must map a pending question's key to its answer.");
    const task = await this.mcp.store.sendInput(taskId, principalOf(ctx), responses);
    if (!task) return notFoundResult();
    const pending = task.state.status === 'input_required' ? Object.keys(task.state.inputRequests) : [];
    const ignored = Object.keys(responses).filter((k) => !pending.includes(k));
    taskLog(task).info({ event: 'task.input', keys: Object.keys(responses), ignored, handle: true }, 'input responses received');
    if (strict && ignored.length === Object.keys(responses).length && !isTerminal(task)) {
      return errorResult(
        `Nothing was answered: ${ignored.map((k) => `"${k}"`).join(', ')} ${ignored.length === 1 ? 'is' : 'are'} not pending${pending.length ? ` (pending: ${pending.map((k) => `"${k}"`).join(', ')})` : ' (no question is pending)'}.`,
      );
    }
    return undefined;
  }

  private async cancel(taskId: string, ctx: ServerContext): Promise<CallToolResult> {
    if (!isTaskId(taskId)) return notFoundResult();
    const task = await this.mcp.store.cancel(taskId, principalOf(ctx));
    if (!task) return notFoundResult();
    if (isTerminal(task))
      return {
        content: [{ type: 'text', text: `The task ${taskId} had already ended (${task.state.status}); nothing to cancel.` }],
        structuredContent: { taskId, status: task.state.status },
      };
    taskLog(task).info({ event: 'task.cancel', handle: true }, 'cancellation requested');
    const text = `Cancellation of ${taskId} ("${task.tool}") requested. The task stops at its next step and undoes what it had done (its compensation runs), then ends cancelled. Call ${this.names.wait} with {"taskId":"${taskId}"} to see it end.`;
    return { content: [{ type: 'text', text }], structuredContent: { taskId, status: 'cancelling' } };
  }

  /** The caller left before any handle or result: its task goes on (`keep`: a retry or its taskId reaches it) or is cancelled. */
  private async dropped(taskId: string, owner: string | undefined, keep: boolean): Promise<never> {
    if (keep) {
      logger.info(
        { event: 'task.dropped', taskId },
        'the caller left before any handle or result: the task goes on for a retry or its taskId',
      );
    } else {
      await this.mcp.store
        .cancel(taskId, owner)
        .catch((err: Error) =>
          logger.warn({ event: 'task.abandon.failed', taskId, err: err.message }, 'could not cancel an abandoned call'),
        );
      logger.info({ event: 'task.abandoned', taskId }, 'the caller left before any handle or result: task cancelled');
    }
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'The request was cancelled');
  }
}
