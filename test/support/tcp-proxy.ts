import net from 'node:net';

/**
 * A TCP proxy in front of Temporal whose answers can be held back: requests still reach the
 * server (and take effect) while the client hears nothing, as when a reply is lost.
 */
export async function startTcpProxy(target: string) {
  const at = target.lastIndexOf(':');
  const sockets = new Set<net.Socket>();
  let held: Array<() => void> | undefined;
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = net.connect(Number(target.slice(at + 1)), target.slice(0, at));
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => (held ? held.push(() => client.write(chunk)) : client.write(chunk)));
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    /** Answers from Temporal stop reaching the client (kept, in order). */
    hold() {
      held ??= [];
    },
    /** The held answers arrive, late. */
    release() {
      const late = held ?? [];
      held = undefined;
      late.forEach((write) => write());
    },
    /** Temporal becomes unreachable: open connections are cut, new ones closed at once. */
    cut() {
      refusing = true;
      sockets.forEach((s) => s.destroy());
    },
    /** Connections reach Temporal again. */
    restore() {
      refusing = false;
    },
    async close() {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
