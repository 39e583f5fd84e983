import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DevServer, startDevServer } from '../../src/temporal/dev-server';
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
  const port = fixedPort ?? (await freePort());
  const server = await startDevServer({ dbFile, host: '127.0.0.1', port, uiPort: await freePort(), namespace: 'default' });
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

export function tempDbFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-')), 'temporal.db');
}
