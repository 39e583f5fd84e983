/**
 * A Temporal cluster on PostgreSQL for a test file or a bench: the same up and down as
 * `npm run cluster` (scripts/cluster/cluster.ts), with the processes tied to this one (killed
 * if it dies) and a connected client. Where a test takes a dev server's address (startServe,
 * startWorker), it takes this one's.
 */
import type { Client } from '@temporalio/client';
import { type Cluster, clusterUp } from '../../scripts/cluster/cluster';
import type { ProcessName } from '../../scripts/cluster/config';
import { connectTemporal, type RestartableTemporal } from './temporal';

export type { Cluster, ProcessName };

export interface TestCluster {
  cluster: Cluster;
  /** The frontend, host:port. */
  address: string;
  /** A client of namespace default; it reconnects when the frontend comes back. */
  client: Client;
  /** SIGKILL one server process, then start it again on its ports once `whileDown` has run. */
  crash(name: ProcessName, whileDown?: () => Promise<unknown>): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestCluster(log?: (m: string) => void): Promise<TestCluster> {
  const cluster = await clusterUp({ log });
  const { client, close } = await connectTemporal(cluster.address).catch(async (err: Error) => {
    await cluster.down();
    throw err;
  });
  return {
    cluster,
    address: cluster.address,
    client,
    async crash(name, whileDown) {
      await cluster.kill(name);
      await whileDown?.();
      await cluster.start(name);
    },
    async stop() {
      await close();
      await cluster.down();
    },
  };
}

/** The cluster's server processes a chaos run kills in turn: a history host, matching, the frontend, the other history host, the internal worker. */
const CHAOS_ORDER: ProcessName[] = ['history-1', 'matching', 'frontend', 'history-2', 'worker'];

/**
 * The cluster in the shape of a restartable dev server (./temporal's RestartableTemporal), for a
 * bench that SIGKILLs "Temporal" and starts it again: each kill takes the next server process of
 * CHAOS_ORDER, and restart starts that one again. PostgreSQL is not killed. `log` hears which.
 */
export function restartableCluster(tc: TestCluster, log: (m: string) => void = () => undefined): RestartableTemporal {
  let kills = 0;
  let down: ProcessName | undefined;
  return {
    address: tc.address,
    dbFile: '',
    current: () => undefined,
    pid: () => undefined,
    async kill() {
      down = CHAOS_ORDER[kills++ % CHAOS_ORDER.length];
      log(`cluster: SIGKILL ${down}`);
      await tc.cluster.kill(down);
    },
    async restart() {
      if (down) await tc.cluster.start(down);
      down = undefined;
    },
    stop: () => tc.stop(),
  };
}
