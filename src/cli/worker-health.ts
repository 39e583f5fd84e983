import type { NativeConnection } from '@temporalio/worker';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The worker's health endpoints. GET /healthz is liveness: 200 while the process serves, with
 * the worker's state, whatever Temporal does (restarting a worker because Temporal is down helps
 * nobody). GET /readyz is readiness: 200 only when the worker runs AND Temporal itself lists this
 * worker (by identity) among the pollers of its task queue, so it proves the worker can reach
 * Temporal and is taking work, not just that the process is up. Anything else answers 503 with
 * the reason. Every /readyz asks Temporal afresh (one DescribeTaskQueue, bounded).
 */

/** The parts of a Worker the check reads. */
export interface HealthWorker {
  options: { identity: string; taskQueue: string; namespace: string };
  getStatus(): { runState: string; numInFlightActivities: number; numCachedWorkflows: number; numInFlightWorkflowActivations: number };
}

/** The parts of a NativeConnection the check uses. */
export type HealthConnection = Pick<NativeConnection, 'workflowService' | 'withDeadline'>;

type PollerInfo = NonNullable<Awaited<ReturnType<NativeConnection['workflowService']['describeTaskQueue']>>['pollers']>[number];
/** temporal.api.enums.v1 values (the proto package is not a dependency of ours). */
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;

export interface HealthReport {
  ok: boolean;
  state: string;
  taskQueue: string;
  namespace: string;
  identity: string;
  reason?: string;
  lastPollAt?: string;
  inFlightActivities: number;
  cachedWorkflows: number;
}

/** A listed poller older than this no longer counts: a long poll is renewed at least every ~70 s. */
export const POLLER_STALE_MS = 2 * 60_000;
const TEMPORAL_DEADLINE_MS = 3_000;

export async function checkWorkerHealth(worker: HealthWorker, connection: HealthConnection, now = Date.now()): Promise<HealthReport> {
  const { identity, taskQueue, namespace } = worker.options;
  const status = worker.getStatus();
  const report: HealthReport = {
    ok: false,
    state: status.runState,
    taskQueue,
    namespace,
    identity,
    inFlightActivities: status.numInFlightActivities,
    cachedWorkflows: status.numCachedWorkflows,
  };
  if (status.runState !== 'RUNNING') return { ...report, reason: `worker is ${status.runState}, not RUNNING` };
  let pollers: PollerInfo[];
  try {
    const res = await connection.withDeadline(now + TEMPORAL_DEADLINE_MS, () =>
      connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      }),
    );
    pollers = res.pollers ?? [];
  } catch (err) {
    return { ...report, reason: `Temporal does not answer DescribeTaskQueue: ${(err as Error).message}` };
  }
  const mine = pollers.find((p) => p.identity === identity);
  if (!mine)
    return {
      ...report,
      reason: `Temporal lists no poller with identity ${identity} on task queue ${taskQueue} (${pollers.length} other poller(s))`,
    };
  const lastPollMs = timestampMs(mine.lastAccessTime);
  if (lastPollMs !== undefined) report.lastPollAt = new Date(lastPollMs).toISOString();
  if (lastPollMs !== undefined && now - lastPollMs > POLLER_STALE_MS) {
    return { ...report, reason: `the last poll Temporal saw from ${identity} is ${Math.round((now - lastPollMs) / 1000)} s old` };
  }
  return { ...report, ok: true };
}

function timestampMs(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

export interface HealthServer {
  /** GET /healthz: liveness. */
  url: string;
  /** GET /readyz: readiness. */
  readyUrl: string;
  close(): Promise<void>;
}

/** Serves GET /healthz and /readyz (and HEAD); every other path answers 404. */
export function startHealthServer(worker: HealthWorker, connection: HealthConnection, host: string, port: number): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((path !== '/healthz' && path !== '/readyz') || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /healthz (liveness) or /readyz (readiness)\n');
      return;
    }
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    if (path === '/healthz') {
      const { runState, numInFlightActivities, numCachedWorkflows } = worker.getStatus();
      const { identity, taskQueue, namespace } = worker.options;
      return answer(200, {
        state: runState,
        taskQueue,
        namespace,
        identity,
        inFlightActivities: numInFlightActivities,
        cachedWorkflows: numCachedWorkflows,
      });
    }
    checkWorkerHealth(worker, connection).then(
      ({ ok, ...report }) => answer(ok ? 200 : 503, report),
      (err: Error) => answer(503, { reason: err.message }),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        url: `http://${shown}:${addr.port}/healthz`,
        readyUrl: `http://${shown}:${addr.port}/readyz`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
