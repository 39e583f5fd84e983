/**
 * Following a task for one call of a handle (the tool's own call, task_wait, task_respond): a
 * bounded wait on the watcher, and the task's pending input requests put to the caller, on its
 * stream (2025) or as an input_required round (2026) when its client can show them itself.
 */
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, type ServerContext } from '@modelcontextprotocol/server';
import type { InputRequest } from '../../contract';
import { type InputResponseError, isTaskId, logger, taskLog, type TaskSnapshot } from '../../tasks';
import type { McpContext } from '../context';
import { principalOf } from '../core/negotiation';
import type { CallSite } from '../revision';
import { followTask, type FollowOutcome } from './follow';
import type { CallToolResult } from '../../contract';
import { handleResult, refusalNote, shortHandleResult, type TaskToolNames, withRefusal } from './handle-text';
import { SaidHandles } from './said-handles';
import { ProgressNotifier } from './progress-notifier';

/**
 * The requestState of an input_required round on a handle call (the tool's own): its retry continues
 * that task. Not signed, because it grants nothing: the taskId is the bearer secret that
 * task_wait takes as an argument, read with the caller's owner binding like any other.
 */
export const REQUEST_STATE_PREFIX = 'mcp-task-handle:';

export class CallFollow {
  /** What the handles already told each caller of each task: later ones say what changed. */
  private readonly said = new SaidHandles();

  constructor(
    private readonly mcp: McpContext,
    private readonly names: TaskToolNames,
  ) {}

  /**
   * A task that has not ended: on 2026, a caller that can show these requests itself (it
   * declared elicitation / sampling) gets them as an input_required round; else the handle text.
   */
  answerPending(task: TaskSnapshot, ctx: ServerContext, site: CallSite, retryTarget: boolean, refusal?: InputResponseError): unknown {
    const askable = site.revision.handleInput === 'answer' ? askableRequests(task, ctx) : {};
    // a refused form is asked again saying why; any other refused request, the handle says why
    const again = !refusal || askable[refusal.key]?.method === 'elicitation/create';
    if (Object.keys(askable).length > 0 && again) {
      const asked = refusal ? withRefusal(askable, refusal) : askable;
      return inputRequired({
        inputRequests: asked as never,
        ...(retryTarget ? { requestState: `${REQUEST_STATE_PREFIX}${task.taskId}` } : {}),
      });
    }
    return this.handle(task, ctx, refusal && refusalNote(refusal));
  }

  /**
   * The handle of a task that has not ended: in full the first time this caller gets one, with a
   * new question, or with a `note`; else a line of what changed and the next call.
   */
  handle(task: TaskSnapshot, ctx: ServerContext, note?: string): CallToolResult {
    const principal = principalOf(ctx);
    const said = this.said.get(principal, task.taskId);
    const keys = task.state.status === 'input_required' ? Object.keys(task.state.inputRequests) : [];
    const full = !said || note !== undefined || keys.some((k) => !said.keys.includes(k));
    const shown = [...new Set([...(said?.keys ?? []), ...keys])];
    this.said.set(principal, task.taskId, { status: task.state.status, statusMessage: task.statusMessage, keys: shown });
    return full ? handleResult(task, this.names, this.mcp.config.handleWaitMs, note) : shortHandleResult(task, this.names, said);
  }

  /** The task's end was told: its handles are forgotten. */
  ended(task: TaskSnapshot, ctx: ServerContext): void {
    this.said.forget(principalOf(ctx), task.taskId);
  }

  /**
   * Follows the task a bounded time, until it ends or needs an answer. 2025: pending input
   * requests go out on this call's stream (answers come back as POSTed responses routed by
   * their id) and the wait goes on; 2026: input needed ends the wait, to be asked in the answer.
   * `waitMs`: the caller's own shorter bound (task_wait's argument).
   */
  async follow(taskId: string, ctx: ServerContext, site: CallSite, placeHeld = false, waitMs = Infinity): Promise<FollowOutcome> {
    if (!isTaskId(taskId)) return { kind: 'gone' };
    if (!placeHeld) return this.mcp.limits.holding(principalOf(ctx), () => this.follow(taskId, ctx, site, true, waitMs));
    const sent = new Set<string>();
    const pushInput = site.revision.handleInput === 'stream';
    // 2025: a question sent on this stream refused (no elicitation, or the user closed it): answer at once, as text
    const refused = new AbortController();
    const off = pushInput ? this.mcp.inputRefused.on(taskId, () => refused.abort()) : undefined;
    // a caller told of progress knows the wait goes on: it may be held up to the longer bound
    const progress = ProgressNotifier.forRequest(ctx);
    progress?.start();
    return followTask(this.mcp.watcher, taskId, principalOf(ctx), {
      boundMs: Math.min(waitMs, progress ? this.mcp.config.progressWaitMs : this.mcp.config.handleWaitMs),
      signal: ctx.mcpReq.signal,
      interrupt: refused.signal,
      onState: (task) => {
        progress?.onState(task);
        if (pushInput) this.pushInputRequests(task, ctx, site, sent);
      },
      // 2025: the questions went out on this stream; the answer, a refusal or the bound ends the wait
      stopAt: (task) => task.state.status === 'input_required' && !pushInput,
    }).finally(() => {
      progress?.stop();
      off?.();
    });
  }

  /** 2025: each pending input request once, on this call's stream (HTTP), or answered in process (stdio). */
  private pushInputRequests(task: TaskSnapshot, ctx: ServerContext, site: CallSite, sent: Set<string>): void {
    if (task.state.status !== 'input_required' || ctx.mcpReq.signal.aborted) return;
    for (const [key, request] of Object.entries(task.state.inputRequests)) {
      if (sent.has(key)) continue;
      sent.add(key);
      const message = site.revision.inputRequestMessage?.(task.taskId, key, request, true);
      const delivery = ctx.http
        ? message && site.transport?.send(message as never, { relatedRequestId: ctx.mcpReq.id })
        : this.askInProcess(task, key, request, ctx);
      void delivery?.catch((err: Error) =>
        logger.debug({ event: 'task.input.send_failed', taskId: task.taskId, key, err: err.message }, 'could not send an input request'),
      );
      taskLog(task).info({ event: 'task.input.sent', key, handle: true }, 'input request sent on the call stream');
    }
  }

  /**
   * stdio keeps one connection: the answer comes back to this process, and goes to the task like
   * tasks/update. A refusal, or a dismissed form (`cancel`), is no answer (as over HTTP).
   */
  private async askInProcess(task: TaskSnapshot, key: string, request: InputRequest, ctx: ServerContext): Promise<void> {
    const answer = await ctx.mcpReq.send({ method: request.method, params: request.params } as never).catch(() => undefined);
    if (answer === undefined || (answer as { action?: unknown }).action === 'cancel') return this.mcp.inputRefused.emit(task.taskId, key);
    await this.mcp.store.sendInput(task.taskId, principalOf(ctx), { [key]: answer });
  }
}

/** The pending requests this caller's client can put to its user itself (2026: by the capabilities it declared on this request). */
function askableRequests(task: TaskSnapshot, ctx: ServerContext): Record<string, InputRequest> {
  if (task.state.status !== 'input_required') return {};
  const envelope = ctx.mcpReq.envelope as { [CLIENT_CAPABILITIES_META_KEY]?: { elicitation?: unknown; sampling?: unknown } } | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {};
  const can = (r: InputRequest) =>
    r.method === 'elicitation/create' ? !!caps.elicitation : r.method === 'sampling/createMessage' ? !!caps.sampling : false;
  return Object.fromEntries(Object.entries(task.state.inputRequests).filter(([, r]) => can(r)));
}
