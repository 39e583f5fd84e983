/**
 * `dev` runs the worker in the server's process: the Temporal SDK's metrics (served by its
 * runtime on a loopback port of their own) are added to the server's GET /metrics, so one scrape
 * has both, as `serve` + `worker --metrics-port` give them in two.
 */
import net from 'node:net';
import type { ExtraMetrics } from '../mcp/http/metrics-http';

/** A loopback address for the SDK's Prometheus endpoint, and the reader of its text. */
export async function embeddedSdkMetrics(): Promise<{ bindAddress: string; read: ExtraMetrics }> {
  const port = await freeLoopbackPort();
  const bindAddress = `127.0.0.1:${port}`;
  const read = async () => {
    const response = await fetch(`http://${bindAddress}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? response.text() : '';
  };
  return { bindAddress, read };
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
