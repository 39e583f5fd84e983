import fs from 'node:fs';
import net from 'node:net';

/** Tests, benches and scripts bind only here. */
export const HOST = '127.0.0.1';

const FIRST_PORT = 10_000;
const BLOCKS = 24;

/**
 * The OS hands out ports from its ephemeral range for port 0 and for outgoing connections, and
 * Temporal's dev server picks its internal ports there too; a port freed by us and handed to
 * one of those before we bind it makes the bind fail. So ports are picked below that range, in
 * a block per jest worker (or per process outside jest), where only this process picks.
 */
function ownBlock(): { first: number; size: number } {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: the common default
  }
  // a system whose ephemeral range starts very low still gets blocks (they may then overlap it)
  const size = Math.floor((Math.max(ephemeralLow, FIRST_PORT + BLOCKS * 100) - FIRST_PORT) / BLOCKS);
  const worker = Number(process.env.JEST_WORKER_ID);
  const index = worker > 0 ? worker % (BLOCKS / 2) : BLOCKS / 2 + (process.pid % (BLOCKS / 2));
  return { first: FIRST_PORT + index * size, size };
}

const block = ownBlock();
let offset = Math.floor(Math.random() * block.size);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1, never the same one twice in a row from this process. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < block.size; tried++) {
    const port = block.first + (offset++ % block.size);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${block.first}-${block.first + block.size - 1}`);
}

/**
 * `start` on ports it picks with freePort, tried again (on new picks) when it fails with a port
 * clash: start-dev also binds ports it picks itself, in the OS's range, where anything may take
 * them first. `clashed` says which failures those are; any other is thrown at once.
 */
export async function onFreePorts<T>(start: () => Promise<T>, clashed: (err: Error) => boolean, what: string, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt === attempts || !clashed(err as Error)) throw err;
      console.warn(`${what} failed, trying other ports: ${(err as Error).message.split('\n')[0]}`);
    }
  }
}
