/**
 * docker-compose.yml (production's shape) and scripts/cluster (the cluster the tests run on)
 * describe one Temporal: the same server version (the one the pinned CLI embeds), the same
 * services and history hosts, shards, databases, dynamic config, search attributes, and the
 * same PostgreSQL major. When one of them changes alone, this fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { embeddedServerVersion } from '../../scripts/cluster/build';
import { DATABASES, DB_USER, dynamicConfig, NUM_HISTORY_SHARDS, PROCESSES, processConfig, serviceOf } from '../../scripts/cluster/config';
import { postgresBin } from '../../scripts/cluster/postgres';
import { SEARCH_ATTRIBUTES } from '../../src/contract';
import { ROOT } from '../support/paths';

const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
/** The compose services that run the Temporal server image. */
const servers = Object.entries(services).filter(([, s]) => String(s.image).startsWith('temporalio/server:'));
const tagOf = (name: string) => String(services[name].image).split(':')[1];

test('the Temporal server version: compose pins the one the cluster builds (the pinned CLI embeds it), admin-tools too', () => {
  const version = embeddedServerVersion();
  for (const [name] of servers) expect(`${name}: ${tagOf(name)}`).toBe(`${name}: ${version}`);
  for (const name of ['temporal-schema', 'temporal-setup'])
    expect(tagOf(name)).toMatch(new RegExp(`^${version.replace(/\./g, '\\.')}(-|$)`));
});

test('the same services, one per container or process, and as many history hosts', () => {
  const count = (pairs: Array<[string, number]>) =>
    pairs.reduce<Record<string, number>>((acc, [service, n]) => ({ ...acc, [service]: (acc[service] ?? 0) + n }), {});
  const inCompose = count(servers.map(([, s]) => [s.environment.TEMPORAL_SERVICES, Number(s.deploy?.replicas ?? 1)]));
  const inCluster = count(PROCESSES.map((name) => [serviceOf(name), 1]));
  expect(inCompose).toEqual(inCluster);
  expect(inCluster.history).toBe(2);
});

test('the same shards, databases, user, SQL plugin and dynamic config', () => {
  const layoutPorts = { grpc: 1, membership: 2 };
  const ports = Object.fromEntries(PROCESSES.map((name) => [name, layoutPorts])) as never;
  const config = parse(
    processConfig({ host: '127.0.0.1', postgresPort: 5432, ports, logFile: () => 'x', dynamicConfigFile: 'y' }, 'frontend'),
  );
  const sql = config.persistence.datastores['postgres-default'].sql;
  for (const [, s] of servers) {
    expect(s.environment).toMatchObject({
      DB: sql.pluginName,
      NUM_HISTORY_SHARDS: String(NUM_HISTORY_SHARDS),
      DBNAME: DATABASES.temporal,
      VISIBILITY_DBNAME: DATABASES.visibility,
      POSTGRES_USER: DB_USER,
    });
    expect(s.configs).toEqual([{ source: 'temporal-dynamic-config', target: '/etc/temporal/config/dynamicconfig/docker.yaml' }]);
  }
  expect(parse(compose.configs['temporal-dynamic-config'].content)).toEqual(parse(dynamicConfig()));
});

test('temporal-setup registers exactly the search attributes the cluster registers (src/contract.ts)', () => {
  const script = services['temporal-setup'].command.join('\n');
  const names = /for name in ([\w ]+); do/.exec(script)?.[1].split(' ');
  expect(names).toEqual(SEARCH_ATTRIBUTES.map((a) => a.name));
});

test("the same PostgreSQL major: compose's image and the machine's PostgreSQL the cluster runs", () => {
  const out = spawnSync(path.join(postgresBin(), 'postgres'), ['--version'], { encoding: 'utf8' });
  const local = /PostgreSQL\) (\d+)\./.exec(out.stdout)?.[1];
  expect(local).toBeDefined();
  expect(tagOf('postgresql').split('.')[0]).toBe(local);
});
