/** startDevServer: the embedded Temporal (start-dev) is ready when the frontend answers, not when it first listens. */
import { NativeConnection } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { startDevServer, waitUntilServing } from '../../../src/cli/dev-server';
import { freePort, HOST } from '../../support/ports';
import { tempDbFile } from '../../support/temporal';

test('a port that accepts connections but does not answer as Temporal is not ready (a frontend that is not healthy yet)', async () => {
  const listening = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listening.listen(0, HOST, resolve));
  const port = (listening.address() as net.AddressInfo).port;
  const child = spawn('sleep', ['30']);
  try {
    await expect(waitUntilServing(HOST, port, child, 1500)).rejects.toThrow(`did not answer on ${HOST}:${port} within 1500 ms`);
    expect(child.signalCode).toBe('SIGTERM'); // stopped, as a start-dev that never answers is
  } finally {
    child.kill('SIGKILL');
    listening.close();
  }
});

test('once started, the worker connection (GetSystemInfo, no retry) succeeds at once', async () => {
  const dev = await startDevServer({
    dbFile: tempDbFile(),
    host: HOST,
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  try {
    const connection = await NativeConnection.connect({ address: dev.address });
    await connection.close();
  } finally {
    await dev.stop();
  }
}, 60_000);
