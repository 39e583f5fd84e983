// scripts/cluster: each server process's config names its own service and ports, the same
// PostgreSQL and databases, loopback membership; the caches are keyed by the server version.
import path from 'node:path';
import YAML from 'yaml';
import { embeddedServerVersion, homeCacheDir } from '../../scripts/cluster/build';
import { type ClusterLayout, DATABASES, dynamicConfig, PROCESSES, processConfig } from '../../scripts/cluster/config';

const layout: ClusterLayout = {
  host: '127.0.0.1',
  postgresPort: 15432,
  ports: {
    'history-1': { grpc: 101, membership: 201 },
    'history-2': { grpc: 102, membership: 202 },
    matching: { grpc: 103, membership: 203 },
    frontend: { grpc: 104, membership: 204, http: 304 },
    worker: { grpc: 105, membership: 205 },
  },
  logFile: (name) => `/tmp/c/${name}.log`,
  dynamicConfigFile: '/tmp/c/config/dynamic.yaml',
};

test('two history hosts: the same service on their own ports; every process on loopback, the frontend as cluster address', () => {
  const configs = Object.fromEntries(PROCESSES.map((name) => [name, YAML.parse(processConfig(layout, name))]));
  const rpc = (grpcPort: number, membershipPort: number) => ({ rpc: { grpcPort, membershipPort, bindOnLocalHost: true } });
  // every process names every service (membership tracks only those), its own with its own ports
  expect(configs['history-1'].services).toEqual({
    frontend: { rpc: { ...rpc(104, 204).rpc, httpPort: 304 } },
    matching: rpc(103, 203),
    history: rpc(101, 201),
    worker: rpc(105, 205),
  });
  expect(configs['history-2'].services.history).toEqual(rpc(102, 202));
  expect(configs.matching.services.history).toEqual(rpc(101, 201));
  expect(configs.frontend.services.frontend.rpc).toMatchObject({ grpcPort: 104, httpPort: 304 });
  for (const name of PROCESSES) {
    const c = configs[name];
    expect(c.global.membership.broadcastAddress).toBe('127.0.0.1');
    expect(c.clusterMetadata.clusterInformation.active.rpcAddress).toBe('127.0.0.1:104');
    expect(c.publicClient.hostPort).toBe('127.0.0.1:104');
    expect(c.log.outputFile).toBe(`/tmp/c/${name}.log`);
    const stores = c.persistence.datastores;
    expect(stores['postgres-default'].sql).toMatchObject({
      pluginName: 'postgres12',
      databaseName: DATABASES.temporal,
      connectAddr: '127.0.0.1:15432',
    });
    expect(stores['postgres-visibility'].sql.databaseName).toBe(DATABASES.visibility);
  }
});

test('dynamic config: search attributes known to every frontend as soon as they are registered', () => {
  expect(YAML.parse(dynamicConfig())).toEqual({ 'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true, constraints: {} }] });
});

test('the build cache is keyed by version under XDG_CACHE_HOME; a CLI without a server version is a clear error', () => {
  expect(homeCacheDir('1.32.0', { XDG_CACHE_HOME: '/c' })).toBe(path.join('/c', 'mcp-temporal-tasks', 'temporal-server-1.32.0'));
  expect(() => embeddedServerVersion('/bin/true')).toThrow(/cannot read the embedded server version from `\/bin\/true --version`/);
  expect(() => embeddedServerVersion('/nonexistent/temporal')).toThrow(/ENOENT/);
});
