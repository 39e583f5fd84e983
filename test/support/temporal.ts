/**
 * The one way tests, benches and scripts start a Temporal dev server (the CLI's start-dev): on
 * 127.0.0.1, free ports, a fresh SQLite file, tried again on other ports when a port clashes.
 */
import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as DevServerModule from '../../dist/cli/dev-server';
import { fromDist } from './paths';
import { freePort, HOST, onFreePorts } from './ports';

export type DevServer = DevServerModule.DevServer;
export type DevServerOptions = DevServerModule.DevServerOptions;

export interface TestTemporal {
  server: DevServer;
  address: string;
  dbFile: string;
  client: Client;
  stop(): Promise<void>;
}

/** A real Temporal dev server with a connected client (namespace default). */
export async function startTestTemporal(
  dbFile = tempDbFile(),
  fixedPort?: number,
  opts: Partial<DevServerOptions> = {},
): Promise<TestTemporal> {
  const server = await startDevServerOnFreePorts({ dbFile, port: fixedPort, ...opts });
  const { client, close } = await connectTemporal(server.address);
  return {
    server,
    address: server.address,
    dbFile,
    client,
    stop: async () => {
      await close();
      await server.stop();
    },
  };
}

/** A client of namespace default; its connection reconnects when the server comes back. */
export async function connectTemporal(address: string): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}

/**
 * start-dev on 127.0.0.1 and free ports (`port` fixed if given). It also binds ports it derives
 * or picks itself (HTTP, internal services, metrics); a clash with another process makes it exit
 * at once, so on free ports it is tried again.
 */
export async function startDevServerOnFreePorts(opts: Partial<DevServerOptions> & { dbFile: string }, attempts = 3): Promise<DevServer> {
  const { startDevServer, DevServerExitedError } = fromDist<typeof DevServerModule>('cli/dev-server');
  const start = async () =>
    startDevServer({
      host: HOST,
      namespace: 'default',
      ...opts,
      port: opts.port ?? (await freePort()),
      uiPort: opts.uiPort ?? (await freePort()),
    });
  return onFreePorts(start, (err) => err instanceof DevServerExitedError, 'start-dev', attempts);
}

/** A fresh SQLite file in a new temp folder. */
export function tempDbFile(prefix = 'mtt-'): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), prefix)), 'temporal.db');
}

export interface RestartableTemporal {
  address: string;
  dbFile: string;
  /** The running server, if any. */
  current(): DevServer | undefined;
  pid(): number | undefined;
  /** SIGKILL, like a crash. */
  kill(): Promise<void>;
  /** The same server again: same SQLite file, same ports. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A dev server on fixed ports and SQLite file, so it can be SIGKILLed and started again as the same server. */
export async function restartableTemporal(dbFile = tempDbFile()): Promise<RestartableTemporal> {
  const first = await startDevServerOnFreePorts({ dbFile });
  const port = Number(first.address.split(':').pop());
  const uiPort = Number(new URL(first.uiUrl).port);
  let current: DevServer | undefined = first;
  return {
    address: first.address,
    dbFile,
    current: () => current,
    pid: () => current?.pid,
    async kill() {
      const killed = current!;
      current = undefined;
      process.kill(killed.pid, 'SIGKILL');
      await killed.stop().catch(() => undefined);
    },
    async restart() {
      current = await startDevServerOnFreePorts({ dbFile, port, uiPort });
    },
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
}
