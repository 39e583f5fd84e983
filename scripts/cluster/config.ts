/**
 * The cluster's shape and each server process's config file. One config per process: the two
 * history hosts run the same service on different ports. A process binds its own service's
 * ports; the others find it through the membership ring (in PostgreSQL).
 */
import YAML from 'yaml';

/** Temporal's four services; history runs on two hosts. */
export const SERVICES = ['frontend', 'matching', 'history', 'worker'] as const;
export type Service = (typeof SERVICES)[number];

/** The server processes, in start order: history before matching and frontend (they route to it). */
export const PROCESSES = ['history-1', 'history-2', 'matching', 'frontend', 'worker'] as const;
export type ProcessName = (typeof PROCESSES)[number];

export const serviceOf = (name: ProcessName): Service => name.replace(/-\d+$/, '') as Service;

/** What the server needs in the database and the config: the names docker-compose.yml uses too. */
export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;
export const DB_USER = 'temporal';
export const NUM_HISTORY_SHARDS = 4;

export interface ProcessPorts {
  grpc: number;
  membership: number;
  /** The frontend's HTTP API. */
  http?: number;
}

export interface ClusterLayout {
  host: string;
  postgresPort: number;
  ports: Record<ProcessName, ProcessPorts>;
  /** Where each process writes its log (Temporal's own log file). */
  logFile: (name: ProcessName) => string;
  dynamicConfigFile: string;
}

/**
 * Whose ports a process's config lists for `service`: its own for its service, the first
 * process's of the others (every process lists every service: membership tracks the services
 * its config names, and a history host that names no matching cannot route to it).
 */
const portsOf = (name: ProcessName, service: Service): ProcessName =>
  serviceOf(name) === service ? name : PROCESSES.find((p) => serviceOf(p) === service)!;

/** The config file of one server process (YAML). */
export function processConfig(layout: ClusterLayout, name: ProcessName): string {
  const { host } = layout;
  const frontend = layout.ports.frontend;
  const sql = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${host}:${layout.postgresPort}`,
      connectProtocol: 'tcp',
      user: DB_USER,
      password: DB_USER, // PostgreSQL trusts loopback in this test cluster
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const rpc = ({ grpc, membership, http }: ProcessPorts) => ({
    rpc: { grpcPort: grpc, membershipPort: membership, bindOnLocalHost: true, ...(http ? { httpPort: http } : {}) },
  });
  const config = {
    log: { stdout: false, level: 'warn', outputFile: layout.logFile(name) },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: NUM_HISTORY_SHARDS,
      datastores: { 'postgres-default': sql(DATABASES.temporal, 20), 'postgres-visibility': sql(DATABASES.visibility, 10) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: host } },
    services: Object.fromEntries(SERVICES.map((service) => [service, rpc(layout.ports[portsOf(name, service)])])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `${host}:${frontend.grpc}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    // the internal worker reaches the frontend here
    publicClient: { hostPort: `${host}:${frontend.grpc}` },
    dynamicConfigClient: { filepath: layout.dynamicConfigFile, pollInterval: '10s' },
  };
  return YAML.stringify(config);
}

/**
 * Dynamic config: the start-dev CLI's one departure from a default that tests feel. A search
 * attribute registered a moment ago is known to every frontend at once, rather than after the
 * cache's refresh; everything else stays the server's default, as in production.
 */
export function dynamicConfig(): string {
  return YAML.stringify({ 'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true, constraints: {} }] });
}
