/**
 * `notifications/progress` for a call that waits on a task and carried `_meta.progressToken`:
 * one at each change of what a reader sees (status, statusMessage, an activity's done/total), and
 * a keep-alive while nothing changes, so a client that resets its timeout on progress keeps
 * waiting. Each names its task (`_meta["io.modelcontextprotocol/related-task"]`): a caller whose
 * call drops mid-wait still knows the taskId to follow.
 */
import { RELATED_TASK_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import { logger, type TaskSnapshot } from '../../tasks';

/**
 * A keep-alive every 10 s: well inside the shortest timeouts seen between a client and a server
 * (30 s proxy idle timeouts, the SDKs' 60 s request timeout), at a cost of one small message.
 */
export const PROGRESS_KEEPALIVE_MS = 10_000;

/** What a keep-alive adds to `progress`, which must grow with every notification, far below any unit a client shows. */
const KEEPALIVE_STEP = 0.001;

export type ProgressToken = string | number;

/** The request's progressToken, when its caller asked for progress. */
export function progressTokenOf(ctx: ServerContext): ProgressToken | undefined {
  const token = (ctx.mcpReq._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

export interface ProgressParams {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
  _meta: Record<string, unknown>;
}

/**
 * The progress of one waiting call. `progress` is a count that only grows: an activity's `done`
 * added to what earlier activities of the task had done (a new activity counting from zero does
 * not move it back); without counts, each change is one step. `total` is given while it is known
 * and not passed.
 */
export class ProgressNotifier {
  private progress = 0;
  /** Counts of activities before the current one (its `done` restarted below the last one seen). */
  private offset = 0;
  private lastDone = 0;
  private said = '';
  private last: TaskSnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly token: ProgressToken,
    private readonly send: (params: ProgressParams) => Promise<void>,
    private readonly keepAliveMs = PROGRESS_KEEPALIVE_MS,
  ) {}

  /** For a request's own context: sent as related to the request (its response stream, or stdio). */
  static forRequest(ctx: ServerContext, keepAliveMs?: number): ProgressNotifier | undefined {
    const token = progressTokenOf(ctx);
    if (token === undefined) return undefined;
    const send = (params: ProgressParams) => ctx.mcpReq.notify({ method: 'notifications/progress', params } as never);
    return new ProgressNotifier(token, send, keepAliveMs);
  }

  /** Each state the wait sees: a notification when something a reader sees changed. */
  onState(task: TaskSnapshot): void {
    this.last = task;
    const seen = JSON.stringify([task.state.status, task.statusMessage, task.progress]);
    if (seen === this.said) return;
    this.said = seen;
    const done = task.progress?.done;
    if (done !== undefined) {
      if (done < this.lastDone) this.offset += this.lastDone;
      this.lastDone = done;
    }
    this.emit(done !== undefined ? Math.max(this.offset + done, this.progress + KEEPALIVE_STEP) : Math.floor(this.progress) + 1);
  }

  /** Keep-alives from now until stop(). */
  start(): void {
    this.timer = setInterval(() => (this.last ? this.emit(this.progress + KEEPALIVE_STEP) : undefined), this.keepAliveMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private emit(progress: number): void {
    const task = this.last!;
    this.progress = Math.round(progress * 1000) / 1000;
    const total = task.progress?.total !== undefined ? this.offset + task.progress.total : undefined;
    const params: ProgressParams = {
      progressToken: this.token,
      progress: this.progress,
      ...(total !== undefined && total >= this.progress ? { total } : {}),
      ...(task.statusMessage ? { message: task.statusMessage } : {}),
      _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
    };
    this.send(params).catch((err: Error) =>
      logger.debug({ event: 'task.progress.send_failed', taskId: task.taskId, err: err.message }, 'could not send a progress notification'),
    );
  }
}
