/**
 * Caps on running tasks, per caller and per server, counted where they live: Temporal's
 * visibility store (the McpOwner search attribute, set on every task; "anonymous" for callers
 * without authentication, who are one caller), so the caps hold across replicas.
 *
 * Visibility lags behind starts (milliseconds on SQL visibility, about a second on
 * Elasticsearch). The lag is bounded locally: every start of this replica made since `lagMs`
 * before a count was taken is added to it. So this replica never lets a caller past its cap;
 * it may refuse a little early right after a burst (a start already visible can count twice
 * within the lag window). Starts made by other replicas within the lag are the only ones that
 * can be missed. Counts are cached (`refreshMs`) and refreshed in the background while a
 * start is admitted on the older one (up to `maxStaleMs`), but a refusal always waits for a
 * fresh count.
 */
import type { Client } from '@temporalio/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { MCP_OWNER } from '../contract';

/** The McpOwner value of tasks started without authentication (owner hashes start with `o1_`). */
export const ANONYMOUS_OWNER = 'anonymous';

export interface QuotaOptions {
  /** Running tasks one caller owns at once; 0: no cap. */
  maxRunningTasksPerCaller: number;
  /** Running tasks of this server's tools at once; 0: no cap. */
  maxRunningTasks: number;
  /** Starts this recent (before a count was taken) are added to it. */
  quotaLagMs: number;
  /** How long a count is reused as it is. */
  refreshMs?: number;
  /** How long an older count is still used while a new one is fetched. */
  maxStaleMs?: number;
}

/** -32603: a start past a cap of running tasks; scope, limit and the count in `data`. */
export class RunningTaskQuotaError extends ProtocolError {
  constructor(scope: 'caller' | 'server', limit: number, running: number) {
    super(ProtocolErrorCode.InternalError, `Task quota reached: at most ${limit} running tasks per ${scope}; end or cancel one first`, { scope, limit, running });
  }
}

const SERVER = '*';
const MAX_CACHED_COUNTS = 10_000;

export class RunningTaskQuota {
  private readonly counts = new Map<string, { visible: number; asOf: number }>();
  private readonly pending = new Map<string, Promise<{ visible: number; asOf: number }>>();
  private readonly starts = new Map<string, Array<{ at: number }>>();
  private readonly refreshMs: number;

  constructor(private readonly client: Client, private readonly opts: QuotaOptions) {
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
        const running = (c: { visible: number; asOf: number }) => {
          const list = this.starts.get(key) ?? [];
          const upToMine = list.slice(0, list.indexOf(mine[i]) + 1);
          return c.visible + upToMine.filter((s) => s.at >= c.asOf - this.opts.quotaLagMs).length;
        };
        let counted = await this.count(key);
        // a refusal is never made on a stale count: tasks may have ended since
        if (running(counted) > limit && Date.now() - counted.asOf >= this.refreshMs) counted = await (this.pending.get(key) ?? this.fetchCount(key));
        const now = running(counted);
        if (now > limit) throw new RunningTaskQuotaError(scope, limit, now - 1);
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
  private count(key: string): Promise<{ visible: number; asOf: number }> {
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

  private fetchCount(key: string): Promise<{ visible: number; asOf: number }> {
    if (this.counts.size > MAX_CACHED_COUNTS) this.counts.clear(); // many callers: forget, recount on demand
    const asOf = Date.now();
    const query = `${key === SERVER ? `${MCP_OWNER.name} IS NOT NULL` : `${MCP_OWNER.name} = "${key}"`} AND ExecutionStatus = "Running"`;
    const fetching = this.client.workflowService
      .countWorkflowExecutions({ namespace: this.client.options.namespace, query })
      .then((r) => {
        const fresh = { visible: Number(r.count ?? 0), asOf };
        this.counts.set(key, fresh);
        return fresh;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, fetching);
    return fetching;
  }

  private record(key: string, at: number): { at: number } {
    const list = this.starts.get(key) ?? [];
    // older starts are in every count taken since: drop them
    const horizon = at - this.opts.quotaLagMs - this.maxStaleMs - this.refreshMs;
    while (list.length > 0 && list[0].at < horizon) list.shift();
    const entry = { at };
    list.push(entry);
    this.starts.set(key, list);
    return entry;
  }

  private forget(key: string, entry: { at: number }): void {
    const list = this.starts.get(key);
    const i = list?.indexOf(entry) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    if (list?.length === 0) this.starts.delete(key);
  }
}
