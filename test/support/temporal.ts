import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DevServer, DevServerExitedError, startDevServer } from '../../src/cli/dev-server';
import { freePort } from './ports';

export interface TestTemporal {
  server: DevServer;
  address: string;
  dbFile: string;
  client: Client;
  stop(): Promise<void>;
}

/** A real Temporal dev server (the CLI's start-dev) on free ports and a fresh SQLite file. */
export async function startTestTemporal(dbFile = tempDbFile(), fixedPort?: number): Promise<TestTemporal> {
  const server = await startOnFreePorts(dbFile, fixedPort);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    server,
    address: server.address,
    dbFile,
    client,
    stop: async () => {
      await connection.close();
      await server.stop();
    },
  };
}

/**
 * start-dev also binds ports it derives or picks itself (HTTP, internal services, metrics); a
 * clash with another process makes it exit at once, so on free ports it is tried again.
 */
async function startOnFreePorts(dbFile: string, fixedPort?: number, attempts = 3): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    try {
      return await startDevServer({ dbFile, host: '127.0.0.1', port, uiPort: await freePort(), namespace: 'default' });
    } catch (err) {
      if (!(err instanceof DevServerExitedError) || attempt === attempts) throw err;
      console.warn(`start-dev exited, trying other ports: ${(err as Error).message}`);
    }
  }
}

export function tempDbFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-')), 'temporal.db');
}
