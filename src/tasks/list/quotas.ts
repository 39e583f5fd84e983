/**
 * Caps on running tasks, per caller and per server, counted where they live: Temporal's
 * visibility store (the McpOwner search attribute, set on every task; "anonymous" for callers
 * without authentication, who are one caller), so the caps hold across replicas.
 *
 * Visibility lags behind starts (milliseconds on SQL visibility, about a second on
 * Elasticsearch). Each task is counted once whatever the lag: a count is taken in two parts
 * split at a cutoff `lagMs` before it, the tasks started before the cutoff (visible by then) and
 * those started since; to the first part is added the larger of the second and this replica's
 * own starts since the cutoff (which it knows without visibility). With one replica that is the
 * exact number; with several, starts of other replicas not yet visible are the only ones missed,
 * and no task is counted twice. Clock skew between this server and Temporal counts as lag.
 * Counts are cached (`refreshMs`) and refreshed in the background while a start is admitted on
 * the older one (up to `maxStaleMs`), but a refusal always waits for a fresh count. The state
 * kept per caller is bounded: starts older than any count in use are dropped, and a caller
 * without recent starts is forgotten (at most MAX_CACHED_COUNTS counts are cached).
 */
import type { Client } from '@temporalio/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { MCP_OWNER } from '../../contract';
import { metrics } from '../metrics';

/** The McpOwner value of tasks started without authentication (owner hashes start with `o1_`). */
export const ANONYMOUS_OWNER = 'anonymous';

export interface QuotaOptions {
  /** Running tasks one caller owns at once; 0: no cap. */
  maxRunningTasksPerCaller: number;
  /** Running tasks of this server's tools at once; 0: no cap. */
  maxRunningTasks: number;
  /** How far visibility may lag behind a start (a count's cutoff lies this long before it). */
  quotaLagMs: number;
  /** How long a count is reused as it is. */
  refreshMs?: number;
  /** How long an older count is still used while a new one is fetched. */
  maxStaleMs?: number;
}

/** -32603: a start past a cap of running tasks; scope, limit and the count in `data`. */
export class RunningTaskQuotaError extends ProtocolError {
  constructor(scope: 'caller' | 'server', limit: number, running: number) {
    super(ProtocolErrorCode.InternalError, `Task quota reached: at most ${limit} running tasks per ${scope}; end or cancel one first`, {
      scope,
      limit,
      running,
    });
  }
}

const SERVER = '*';
const MAX_CACHED_COUNTS = 10_000;
/** Every this many starts, callers without a recent start are dropped from the start lists. */
const SWEEP_EVERY = 1_000;

/** A count split at `cutoff`: tasks started before it, and the ones since that are already visible. */
interface Count {
  before: number;
  since: number;
  cutoff: number;
  asOf: number;
}

export class RunningTaskQuota {
  private readonly counts = new Map<string, Count>();
  private readonly pending = new Map<string, Promise<Count>>();
  private readonly starts = new Map<string, Array<{ at: number }>>();
  private recorded = 0;
  private readonly refreshMs: number;

  constructor(
    private readonly client: Client,
    private readonly opts: QuotaOptions,
  ) {
    this.refreshMs = opts.refreshMs ?? 1_000;
    this.maxStaleMs = opts.maxStaleMs ?? 10_000;
  }

  private readonly maxStaleMs: number;

  get enabled(): boolean {
    return this.opts.maxRunningTasksPerCaller > 0 || this.opts.maxRunningTasks > 0;
  }

  /**
   * Takes a place for one more start of `owner` (its McpOwner value), or throws
   * RunningTaskQuotaError. The returned function gives it back (the start failed).
   */
  async admit(owner: string): Promise<() => void> {
    const now = Date.now();
    const scopes: Array<['caller' | 'server', string, number]> = [
      ['caller', owner, this.opts.maxRunningTasksPerCaller],
      ['server', SERVER, this.opts.maxRunningTasks],
    ];
    const active = scopes.filter(([, , limit]) => limit > 0);
    // recorded before the counts are read, in arrival order: each admit counts the ones before it
    const mine = active.map(([, key]) => this.record(key, now));
    const undo = () => active.forEach(([, key], i) => this.forget(key, mine[i]));
    try {
      for (const [i, [scope, key, limit]] of active.entries()) {
        const running = (c: Count) => {
          const list = this.starts.get(key) ?? [];
          const upToMine = list.slice(0, list.indexOf(mine[i]) + 1);
          return c.before + Math.max(c.since, upToMine.filter((s) => s.at >= c.cutoff).length);
        };
        let counted = await this.count(key);
        // a refusal is never made on a stale count: tasks may have ended since
        if (running(counted) > limit && Date.now() - counted.asOf >= this.refreshMs)
          counted = await (this.pending.get(key) ?? this.fetchCount(key));
        const now = running(counted);
        if (scope === 'server') metrics.runningTasks(now > limit ? now - 1 : now, limit); // with this start, unless refused
        if (now > limit) {
          metrics.refused(scope === 'server' ? 'running_tasks' : 'running_tasks_per_caller');
          throw new RunningTaskQuotaError(scope, limit, now - 1);
        }
      }
    } catch (err) {
      undo();
      throw err;
    }
    return undo;
  }

  /**
   * The visible count: a fresh one is reused; an older one (up to `maxStaleMs`) is used while a
   * new count is fetched in the background, so a start waits for a count only now and then.
   * A stale count only misses tasks that ended since (it refuses early, never late) and other
   * replicas' starts since it was taken.
   */
  private count(key: string): Promise<Count> {
    const cached = this.counts.get(key);
    const pending = this.pending.get(key);
    if (cached && Date.now() - cached.asOf < this.refreshMs) return Promise.resolve(cached);
    const fetching = pending ?? this.fetchCount(key);
    if (cached && Date.now() - cached.asOf < this.maxStaleMs) {
      fetching.catch(() => undefined); // a failed background refresh: the next start tries again
      return Promise.resolve(cached);
    }
    return fetching;
  }

  private fetchCount(key: string): Promise<Count> {
    if (this.counts.size > MAX_CACHED_COUNTS) this.counts.clear(); // many callers: forget, recount on demand
    const asOf = Date.now();
    const cutoff = asOf - this.opts.quotaLagMs;
    const running = `${key === SERVER ? `${MCP_OWNER.name} IS NOT NULL` : `${MCP_OWNER.name} = "${key}"`} AND ExecutionStatus = "Running"`;
    const at = new Date(cutoff).toISOString();
    const countOf = (query: string) =>
      this.client.workflowService
        .countWorkflowExecutions({ namespace: this.client.options.namespace, query })
        .then((r) => Number(r.count ?? 0));
    const fetching = Promise.all([countOf(`${running} AND StartTime < "${at}"`), countOf(`${running} AND StartTime >= "${at}"`)])
      .then(([before, since]) => {
        const fresh = { before, since, cutoff, asOf };
        this.counts.set(key, fresh);
        return fresh;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, fetching);
    return fetching;
  }

  /** Callers whose starts are tracked (bounded: see the sweep in record()). */
  get trackedCallers(): number {
    return this.starts.size;
  }

  private record(key: string, at: number): { at: number } {
    // older starts are before the cutoff of every count in use: visibility has them
    const horizon = at - this.opts.quotaLagMs - this.maxStaleMs - this.refreshMs;
    if (++this.recorded % SWEEP_EVERY === 0) this.sweep(horizon);
    const list = this.starts.get(key) ?? [];
    while (list.length > 0 && list[0].at < horizon) list.shift();
    const entry = { at };
    list.push(entry);
    this.starts.set(key, list);
    return entry;
  }

  /** Drops callers whose last start is older than `horizon`, so one-off callers cost nothing for good. */
  private sweep(horizon: number): void {
    for (const [key, list] of this.starts) if ((list.at(-1)?.at ?? 0) < horizon) this.starts.delete(key);
  }

  private forget(key: string, entry: { at: number }): void {
    const list = this.starts.get(key);
    const i = list?.indexOf(entry) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    if (list?.length === 0) this.starts.delete(key);
  }
}
