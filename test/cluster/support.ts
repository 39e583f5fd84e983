/**
 * What the cluster tier's files share: a cluster of the file's own (test/support/temporal-cluster),
 * two `worker` and two `serve` processes of dist/cli on it, and the effects ledger the workers
 * write. The rest comes from the support library.
 */
import { call, RpcError, startServe, startWorker } from '../support/mcp';
import { type CliProcess, stopAll } from '../support/processes';
import { ledgerDir } from '../support/ledger';
import { startTestCluster, type TestCluster } from '../support/temporal-cluster';
import { sleep } from '../support/wait';

export { report } from '../faults/support';

export interface ClusterStack {
  tc: TestCluster;
  /** The two `serve` replicas' endpoints. */
  urls: [string, string];
  serves: CliProcess[];
  workers: CliProcess[];
  ledger: string;
  /** Another worker like the first two (after one was killed). */
  addWorker(): Promise<CliProcess>;
}

export interface ClusterStackOptions {
  serveArgs?: string[];
  serveEnv?: NodeJS.ProcessEnv;
  workerEnv?: NodeJS.ProcessEnv;
}

/** Up before the file's tests, down after them (processes first, then the cluster). */
export function useClusterStack(opts: ClusterStackOptions = {}): ClusterStack {
  const stack = { serves: [], workers: [] } as unknown as ClusterStack;
  beforeAll(async () => {
    stack.tc = await startTestCluster((m) => console.log(`[cluster] ${m}`));
    stack.ledger = ledgerDir();
    const env = { TEMPORAL_NAMESPACE: stack.tc.cluster.namespace, MCP_TASKS_LEDGER_DIR: stack.ledger, ...opts.workerEnv };
    stack.addWorker = async () => {
      const worker = await startWorker(stack.tc.address, env);
      stack.workers.push(worker);
      return worker;
    };
    await Promise.all([stack.addWorker(), stack.addWorker()]);
    const serve = () => startServe(stack.tc.address, opts.serveArgs, { TEMPORAL_NAMESPACE: stack.tc.cluster.namespace, ...opts.serveEnv });
    const [a, b] = await Promise.all([serve(), serve()]);
    stack.urls = [a.url, b.url];
    stack.serves = [a.proc, b.proc];
  });
  afterAll(async () => {
    await stopAll();
    await stack.tc?.stop();
  });
  return stack;
}

/** tasks/update retried while the server says the store is unreachable (-32603); the tries it took. */
export async function answerEventually(url: string, taskId: string, inputResponses: Record<string, unknown>): Promise<number> {
  for (let tries = 1; ; tries++) {
    try {
      await call(url, 'tasks/update', { taskId, inputResponses });
      return tries;
    } catch (err) {
      if (!(err instanceof RpcError) || err.code !== -32603 || tries >= 60) throw err;
      await sleep(500);
    }
  }
}
