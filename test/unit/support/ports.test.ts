/** The test support's ports: below the OS's ephemeral range, never repeated, skipping taken ones. */
import fs from 'node:fs';
import net from 'node:net';
import { freePort, HOST, onFreePorts } from '../../support/ports';

const ephemeralLow = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('ports come from below the ephemeral range and are not handed out twice', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 40; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
});

test('a port someone holds is skipped', async () => {
  // hold the ports around the next pick; the picks that follow must all be others
  const held: net.Server[] = [];
  const first = await freePort();
  for (let port = first + 1; port < first + 6; port++) {
    const srv = net.createServer();
    await new Promise<void>((resolve) => srv.once('error', () => resolve()).listen(port, HOST, () => resolve()));
    held.push(srv);
  }
  try {
    const next = await freePort();
    expect(next === first || (next > first && next < first + 6)).toBe(false);
  } finally {
    await Promise.all(held.map((srv) => new Promise((r) => srv.close(r))));
  }
});

describe('onFreePorts', () => {
  const clash = () => new Error('listen tcp 127.0.0.1:1: bind: address already in use');
  const clashed = (err: Error) => /address already in use/.test(err.message);
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  test('a clash is tried again, and the start that succeeds is returned', async () => {
    let calls = 0;
    const start = async () => (++calls < 3 ? Promise.reject(clash()) : calls);
    await expect(onFreePorts(start, clashed, 'x')).resolves.toBe(3);
  });

  test('after `attempts` clashes the last one is thrown', async () => {
    let calls = 0;
    const start = async () => Promise.reject(Object.assign(clash(), { attempt: ++calls }));
    await expect(onFreePorts(start, clashed, 'x', 2)).rejects.toMatchObject({ attempt: 2 });
  });

  test('any other failure is thrown at once', async () => {
    let calls = 0;
    const start = async () => Promise.reject(new Error(`no such file ${++calls}`));
    await expect(onFreePorts(start, clashed, 'x')).rejects.toThrow('no such file 1');
  });
});
