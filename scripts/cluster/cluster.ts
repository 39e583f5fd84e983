/**
 * A Temporal cluster on PostgreSQL, up and down: the server built from its Go module (./build),
 * PostgreSQL in a folder of its own (./postgres), both schemas through temporal-sql-tool, the
 * services as separate processes (two history hosts), then the namespace and the search
 * attributes registered with the Temporal CLI, as an operator does. `npm run cluster` and the
 * tests' helper (test/support/temporal-cluster.ts) both come here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as Contract from '../../dist/contract';
import { fromDist } from '../../test/support/paths';
import { freePort, HOST } from '../../test/support/ports';
import { ensureServerBuild, type ServerBuild } from './build';
import { type ClusterLayout, DATABASES, DB_USER, dynamicConfig, type ProcessName, PROCESSES, processConfig, serviceOf } from './config';
import { type Daemon, launch, type LaunchOptions, waitForPort } from './daemons';
import { type Postgres, startPostgres } from './postgres';
import { registerNamespace } from './namespace';

export interface ClusterOptions {
  /** The cluster's folder (config, logs, PostgreSQL's data); default a new temp folder. */
  dir?: string;
  namespace?: string;
  /** Processes outlive this one (`npm run cluster -- up`). */
  detached?: boolean;
  log?: (message: string) => void;
}

export interface Cluster {
  /** The frontend, host:port. */
  address: string;
  namespace: string;
  dir: string;
  build: ServerBuild;
  layout: ClusterLayout;
  postgres: Postgres;
  /** The running server processes by name. */
  processes: Map<ProcessName, Daemon>;
  /** SIGKILL one server process (a crash). */
  kill(name: ProcessName): Promise<void>;
  /** One server process again, same config and ports; resolves once it listens. */
  start(name: ProcessName): Promise<void>;
  /** Everything stopped and the folder removed. */
  down(): Promise<void>;
}

export async function clusterUp(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const build = ensureServerBuild(undefined, log);
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-cluster-'));
  fs.mkdirSync(path.join(dir, 'config'), { recursive: true });
  fs.chmodSync(dir, 0o755); // PostgreSQL's user reaches its data folder inside
  const launchOpts: LaunchOptions = { detached: opts.detached };
  const layout = await allocate(dir);
  writeConfigs(layout, dir);
  log(`PostgreSQL on ${HOST}:${layout.postgresPort} (${dir}/pg)`);
  const postgres = await startPostgres(path.join(dir, 'pg'), HOST, layout.postgresPort, launchOpts).catch((err: Error) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const processes = new Map<ProcessName, Daemon>();
  const cluster: Cluster = {
    address: `${HOST}:${layout.ports.frontend.grpc}`,
    namespace: opts.namespace ?? 'default',
    dir,
    build,
    layout,
    postgres,
    processes,
    kill: async (name) => {
      await processes.get(name)?.stop('SIGKILL');
      processes.delete(name);
    },
    start: async (name) => {
      const d = startProcess(build, layout, dir, name, launchOpts);
      processes.set(name, d);
      await waitForPort(d, HOST, layout.ports[name].grpc);
    },
    down: async () => {
      await Promise.all([...processes.values()].map((d) => d.stop('SIGTERM', 10_000)));
      processes.clear();
      await postgres.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    createSchemas(build, layout.postgresPort);
    log('schemas temporal and temporal_visibility ready; starting ' + PROCESSES.join(', '));
    // the first process writes the cluster's metadata into the fresh database; started together, two of them race to (and one exits)
    const [first, ...rest] = PROCESSES;
    await cluster.start(first);
    await Promise.all(rest.map((name) => cluster.start(name)));
    const { SEARCH_ATTRIBUTES } = fromDist<typeof Contract>('contract');
    await registerNamespace(cluster.address, cluster.namespace, SEARCH_ATTRIBUTES, log);
  } catch (err) {
    await cluster.down().catch(() => undefined);
    throw err;
  }
  log(`Temporal cluster up: frontend ${cluster.address}, namespace ${cluster.namespace}`);
  return cluster;
}

async function allocate(dir: string): Promise<ClusterLayout> {
  const ports = {} as ClusterLayout['ports'];
  for (const name of PROCESSES) {
    ports[name] = { grpc: await freePort(), membership: await freePort(), ...(name === 'frontend' ? { http: await freePort() } : {}) };
  }
  return {
    host: HOST,
    postgresPort: await freePort(),
    ports,
    logFile: (name) => path.join(dir, `${name}.log`),
    dynamicConfigFile: path.join(dir, 'config', 'dynamic.yaml'),
  };
}

const configFile = (dir: string, name: ProcessName) => path.join(dir, 'config', `${name}.yaml`);

function writeConfigs(layout: ClusterLayout, dir: string): void {
  fs.writeFileSync(layout.dynamicConfigFile, dynamicConfig());
  for (const name of PROCESSES) fs.writeFileSync(configFile(dir, name), processConfig(layout, name));
}

function startProcess(build: ServerBuild, layout: ClusterLayout, dir: string, name: ProcessName, opts: LaunchOptions): Daemon {
  const args = ['--config-file', configFile(dir, name), '--allow-no-auth', 'start', '--service', serviceOf(name)];
  // the server's own log goes to the file its config names; this one catches what it prints before that
  return launch(name, build.server, args, path.join(dir, `${name}.out`), opts);
}

/** Both databases, as docker-compose.yml's temporal-schema does: create, setup-schema 0.0, update-schema to the module's newest. */
export function createSchemas(build: ServerBuild, port: number): void {
  for (const [db, folder] of [
    [DATABASES.temporal, 'temporal'],
    [DATABASES.visibility, 'visibility'],
  ]) {
    const base = ['--plugin', 'postgres12', '--ep', HOST, '-p', String(port), '-u', DB_USER, '--pw', DB_USER, '--db', db];
    sqlTool(build, [...base, 'create']);
    sqlTool(build, [...base, 'setup-schema', '-v', '0.0']);
    sqlTool(build, [...base, 'update-schema', '-d', path.join(build.schemaDir, folder, 'versioned')]);
  }
}

function sqlTool(build: ServerBuild, args: string[]): void {
  const out = spawnSync(build.sqlTool, args, { encoding: 'utf8' });
  if (out.status !== 0) {
    const said = `${out.stdout}\n${out.stderr}`.trim().slice(-3000);
    throw new Error(`temporal-sql-tool ${args.join(' ')} failed (${out.error?.message ?? `exit ${out.status}`}):\n${said}`);
  }
}
