#!/usr/bin/env node
// `npm run cluster -- up|down|status`: the tests' Temporal cluster on PostgreSQL (./cluster.ts),
// left running for a bench, a demo or a look with the Temporal CLI. `up` prints the frontend's
// address and records the processes in .cluster/state.json (git-ignored); `down` stops them by
// pid and removes the cluster's folder.
import fs from 'node:fs';
import path from 'node:path';
import { killPid } from '../../test/support/processes';
import { ROOT } from '../../test/support/paths';
import { clusterUp } from './cluster';
import { adopt } from './daemons';

const STATE = path.join(ROOT, '.cluster', 'state.json');

interface State {
  address: string;
  namespace: string;
  dir: string;
  pids: Array<{ name: string; pid: number }>;
}

const readState = (): State | undefined => (fs.existsSync(STATE) ? (JSON.parse(fs.readFileSync(STATE, 'utf8')) as State) : undefined);
const running = (state: State) => state.pids.filter(({ pid }) => killPid(pid, 0 as unknown as NodeJS.Signals));

async function up(): Promise<void> {
  const before = readState();
  if (before && running(before).length) {
    console.log(`already up: TEMPORAL_ADDRESS=${before.address} (npm run cluster -- down first)`);
    return;
  }
  const cluster = await clusterUp({ detached: true, log: (m) => console.error(m) });
  const pids: State['pids'] = [...cluster.processes].map(([name, d]) => ({ name, pid: d.pid }));
  pids.push({ name: 'postgres', pid: cluster.postgres.daemon().pid });
  const state: State = { address: cluster.address, namespace: cluster.namespace, dir: cluster.dir, pids };
  fs.mkdirSync(path.dirname(STATE), { recursive: true });
  fs.writeFileSync(STATE, JSON.stringify(state, null, 2));
  console.log(`TEMPORAL_ADDRESS=${cluster.address} TEMPORAL_NAMESPACE=${cluster.namespace}`);
  console.error(`logs and data in ${cluster.dir}`);
}

async function down(): Promise<void> {
  const state = readState();
  if (!state) return console.log('no cluster recorded in .cluster/state.json');
  const stop = ({ name, pid }: State['pids'][number]) => adopt(name, pid, '').stop(name === 'postgres' ? 'SIGINT' : 'SIGTERM', 30_000);
  // the server processes together, then PostgreSQL (they write to it until they are gone)
  await Promise.all(state.pids.filter((p) => p.name !== 'postgres').map(stop));
  await Promise.all(state.pids.filter((p) => p.name === 'postgres').map(stop));
  fs.rmSync(state.dir, { recursive: true, force: true });
  fs.rmSync(STATE);
  console.log(`cluster at ${state.address} stopped`);
}

function status(): void {
  const state = readState();
  if (!state) return console.log('down');
  const alive = new Set(running(state).map((p) => p.name));
  for (const { name, pid } of state.pids) console.log(`${name.padEnd(10)} pid ${pid} ${alive.has(name) ? 'running' : 'gone'}`);
  console.log(`TEMPORAL_ADDRESS=${state.address} TEMPORAL_NAMESPACE=${state.namespace}`);
}

const commands: Record<string, () => Promise<void> | void> = { up, down, status };

if (require.main === module) {
  const command = commands[process.argv[2] ?? ''];
  if (!command) {
    console.error('usage: npm run cluster -- up|down|status');
    process.exit(2);
  }
  Promise.resolve(command()).then(
    () => process.exit(0),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
