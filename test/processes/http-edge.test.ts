/**
 * Issue 32 item 1, hostile callers at the HTTP edge, with real sockets on 127.0.0.1 against
 * `serve` child processes (RSS is the child's, from /proc): a request without valid credentials
 * is answered 401 before its body is read; connections are capped (the oldest idle one makes
 * room for a newcomer); a request must arrive within a deadline. The flood's `serve` runs under
 * a 1,024-descriptor limit, as in the audit that found EMFILE blocking healthy callers.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { buildRequest } from '../support/mcp';
import { CLI } from '../support/paths';
import { type ChildHandle, spawnProcess } from '../support/processes';
import { useStack } from '../support/stack';

const TOKEN = 'tok-alice-0123456789';
const alice = { authorization: `Bearer ${TOKEN}` };
const stack = useStack({ noServer: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `serve` with a soft open-file limit of `fdLimit`, on a free port; its pid is the node process (exec). */
async function serveWithFdLimit(fdLimit: number, args: string[] = []): Promise<{ proc: ChildHandle; url: string; port: number }> {
  const env = { TEMPORAL_ADDRESS: stack.temporal.address, MCP_AUTH_TOKENS: `alice:${TOKEN}`, MCP_OWNER_KEY: 'an-owner-key-for-edge-tests' };
  const proc = spawnProcess(
    '/bin/sh',
    [
      '-c',
      `ulimit -n ${fdLimit} && exec "$@"`,
      'sh',
      process.execPath,
      CLI,
      'serve',
      '--port',
      '0',
      '--task-queue',
      stack.taskQueue,
      ...args,
    ],
    { env, name: 'serve' },
  );
  const [, url] = await proc.waitFor(/MCP endpoint: (\S+)/);
  return { proc, url, port: Number(new URL(url).port) };
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Every socket a test opens, destroyed after it whatever happened (and the server given time to see them close: the cap counts them). */
const sockets = new Set<net.Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await sleep(500);
});

/** A raw connection that writes `head` at once; its received bytes accumulate in `received()`. */
function rawSocket(port: number, head: string): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.add(socket);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined); // the server closing on us is what some tests expect
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => {
      socket.write(head);
      resolve({ socket, received: () => text, closed });
    });
    socket.once('close', () => resolve({ socket, received: () => text, closed })); // refused or evicted before connecting
  });
}

/** A POST /mcp whose headers are complete and whose body of `length` bytes is not. */
const postHead = (length: number, headers: Record<string, string> = {}) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n` +
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  '\r\n';

/** tools/list as alice on a new connection (a kept-alive one would be let in anyway), with its time. */
async function timedToolsList(url: string): Promise<{ status: number; ms: number }> {
  const { headers, body } = buildRequest('tools/list', {}, { headers: alice });
  const began = Date.now();
  const status = await new Promise<number>((resolve) => {
    const req = http.request(url, { method: 'POST', headers, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0)); // refused or closed: no answer
    req.end(body);
  });
  return { status, ms: Date.now() - began };
}

test('1,100 slow sockets and 500 unauthenticated 4 MB bodies sent slowly: each body is answered 401 unread, a healthy caller within a second, RSS back near idle', async () => {
  const { proc, url, port } = await serveWithFdLimit(1024);
  try {
    for (let i = 0; i < 20; i++) expect((await timedToolsList(url)).status).toBe(200);
    await sleep(500);
    const idle = rssMb(proc.pid);
    // slowloris: headers that never end (more of them than the cap of 1024 - 128 = 896)
    const slow = await Promise.all(Array.from({ length: 1_100 }, () => rawSocket(port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n')));
    // 4 MB declared, 64 KB sent, then 16 KB every 200 ms: the answer must not wait for the rest
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const bodies = await Promise.all(Array.from({ length: 500 }, () => rawSocket(port, postHead(4_000_000) + ' '.repeat(64 * 1024))));
    const drip = setInterval(() => bodies.forEach(({ socket }) => socket.writable && socket.write(chunk)), 200);
    try {
      const healthy = [];
      for (let i = 0; i < 5; i++) healthy.push(await timedToolsList(url));
      expect(healthy.map((h) => h.status)).toEqual([200, 200, 200, 200, 200]);
      expect(Math.max(...healthy.map((h) => h.ms))).toBeLessThan(1_000);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && bodies.some((b) => !/\r\n\r\n/.test(b.received()))) await sleep(100);
      const answers = bodies.map((b) => b.received());
      expect(answers.filter((a) => a.startsWith('HTTP/1.1 401 ') && /\r\nwww-authenticate: Bearer/i.test(a))).toHaveLength(500);
      const peak = rssMb(proc.pid);
      // the evicted slow sockets were closed by the server; those left are at most the cap
      expect(slow.filter((s) => !s.socket.destroyed).length).toBeLessThanOrEqual(896);
      for (const s of [...slow, ...bodies]) s.socket.destroy();
      await sleep(2_000);
      const after = rssMb(proc.pid);
      console.log(`serve RSS: idle ${idle.toFixed(0)} MB, under load ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB`);
      expect(after - idle).toBeLessThan(60);
      expect((await timedToolsList(url)).status).toBe(200);
    } finally {
      clearInterval(drip);
    }
  } finally {
    await proc.stop();
  }
}, 60_000);

describe('the cap and the deadline, small enough to see', () => {
  let serve: { proc: ChildHandle; url: string; port: number };
  beforeAll(async () => {
    serve = await serveWithFdLimit(1024, ['--max-connections', '5', '--request-timeout-ms', '1500']);
  });
  afterAll(() => serve.proc.stop());

  test('at the cap, idle connections make room for a newcomer (oldest first)', async () => {
    const idle = await Promise.all(Array.from({ length: 5 }, () => rawSocket(serve.port, 'POST /mcp HTTP/1.1\r\n')));
    expect((await timedToolsList(serve.url)).status).toBe(200);
    await idle[0].closed; // the oldest was evicted
    expect(idle.slice(1).every((s) => !s.socket.destroyed)).toBe(true);
  });

  test('when every connection is serving a request, a newcomer is closed at once, and served again once one ends', async () => {
    // authenticated requests whose bodies are on their way: each one in progress (Node answers
    // `Expect: 100-continue` as it starts serving the request, so the test knows when they are)
    const busy = await Promise.all(
      Array.from({ length: 5 }, () => rawSocket(serve.port, postHead(100, { ...alice, expect: '100-continue' }) + '{')),
    );
    while (!busy.every((b) => b.received().startsWith('HTTP/1.1 100 Continue'))) await sleep(20);
    const refused = await rawSocket(serve.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await refused.closed;
    expect(refused.received()).toBe('');
    busy[0].socket.destroy();
    await sleep(200);
    expect((await timedToolsList(serve.url)).status).toBe(200);
  });

  test('a body that does not arrive within the deadline is answered 408 and its connection closed', async () => {
    const began = Date.now();
    const stalled = await rawSocket(serve.port, postHead(1_000, alice) + '{"jsonrpc":');
    await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - began).toBeLessThan(4_000);
  });

  test('headers that do not arrive within the deadline: 408 too', async () => {
    const stalled = await rawSocket(serve.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`);
    await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('an authenticated body is still read up to the size limit: a body that arrives in pieces is served', async () => {
    const { headers, body } = buildRequest('tools/list', {}, { headers: { ...alice, connection: 'close' } });
    delete headers['content-type']; // postHead's own
    delete headers.accept;
    const piece = await rawSocket(serve.port, postHead(Buffer.byteLength(body), headers) + body.slice(0, 10));
    await sleep(300);
    piece.socket.write(body.slice(10));
    await piece.closed;
    expect(piece.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  test('the protected resource metadata path reads no body either: a POST with 4 MB on its way is answered at once', async () => {
    const post = await rawSocket(
      serve.port,
      postHead(4_000_000).replace('POST /mcp', 'POST /.well-known/oauth-protected-resource/mcp') + ' '.repeat(64 * 1024),
    );
    await post.closed;
    expect(post.received()).toMatch(/^HTTP\/1\.1 404 /); // no OAuth on this server: no metadata
  });

  test('a Host that makes no URL: 400 before the body is read', async () => {
    const bad = await rawSocket(serve.port, postHead(4_000_000, alice).replace('Host: 127.0.0.1', 'Host: a b'));
    await bad.closed;
    expect(bad.received()).toMatch(/^HTTP\/1\.1 400 [\s\S]*Bad Request/);
  });
});

describe('a request refused while its body is on its way: answered first, the rest drained (bounded), then closed', () => {
  let serve: { proc: ChildHandle; url: string; port: number };
  beforeAll(async () => {
    serve = await serveWithFdLimit(1024);
  });
  afterAll(() => serve.proc.stop());

  /** A raw connection that keeps its errors (a reset or a broken pipe is what these tests look for). */
  async function sender(head: string) {
    const conn = await rawSocket(serve.port, head);
    const errors: string[] = [];
    conn.socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    let ended = false;
    conn.socket.once('end', () => (ended = true));
    const answered = async () => {
      while (!/\r\n\r\n[\s\S]*\}$/.test(conn.received()) && !conn.socket.destroyed) await sleep(20);
      return conn.received();
    };
    return { ...conn, errors, ended: () => ended, answered };
  }
  const write = (socket: net.Socket, data: string | Buffer) => new Promise<void>((r) => socket.write(data, () => r()));
  const chunked = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
  const chunkedHead = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const MB = 1024 * 1024;

  test.each([
    [
      'without a length, at the limit',
      chunkedHead,
      chunked(Buffer.alloc(4 * MB + 1, 0x20)),
      [chunked(Buffer.alloc(MB, 0x20)), '0\r\n\r\n'],
    ],
    [
      'with a length over the limit, at once',
      postHead(5 * MB, alice),
      Buffer.alloc(64 * 1024, 0x20),
      [Buffer.alloc(5 * MB - 64 * 1024, 0x20)],
    ],
  ])(
    '413 to a body sent %s: the client reads it, the rest lands, the connection closes after the body ends',
    async (_, head, first, rest) => {
      const conn = await sender(head);
      await write(conn.socket, first);
      const answer = await conn.answered();
      expect(answer).toMatch(/^HTTP\/1\.1 413 [\s\S]*\r\nconnection: close\r\n[\s\S]*Payload Too Large/i);
      expect(conn.ended()).toBe(false); // not closed under the client while it still sends
      for (const piece of rest) await write(conn.socket, piece);
      const sentAll = Date.now();
      await conn.closed;
      expect(conn.errors).toEqual([]);
      expect(Date.now() - sentAll).toBeLessThan(2_000); // at the body's end, not at the 5 s bound
    },
  );

  test('401 to a body with a length: the rest is drained as it arrives, then the connection closes', async () => {
    const conn = await sender(postHead(2 * MB) + ' '.repeat(64 * 1024));
    expect(await conn.answered()).toMatch(/^HTTP\/1\.1 401 [\s\S]*\r\nconnection: close\r\n/i);
    for (let sent = 64 * 1024; sent < 2 * MB; sent += 256 * 1024) await write(conn.socket, ' '.repeat(Math.min(256 * 1024, 2 * MB - sent)));
    const sentAll = Date.now();
    await conn.closed;
    expect(conn.errors).toEqual([]);
    expect(Date.now() - sentAll).toBeLessThan(2_000);
  });

  test('bounded: a client that stalls after the answer is closed after 5 s; one that keeps sending, after 4 MiB more', async () => {
    const stalled = await sender(postHead(2 * MB) + ' '.repeat(1024));
    await stalled.answered();
    const answeredAt = Date.now();
    const flood = await sender(chunkedHead);
    await write(flood.socket, chunked(Buffer.alloc(4 * MB + 1, 0x20)));
    await flood.answered();
    let sentAfter = 0;
    const piece = chunked(Buffer.alloc(64 * 1024, 0x20));
    while (flood.socket.writable && !flood.ended() && sentAfter < 64 * MB) {
      await Promise.race([write(flood.socket, piece), flood.closed]);
      sentAfter += piece.length;
    }
    await flood.closed;
    expect(sentAfter).toBeGreaterThan(4 * MB); // what the server read, and what the sockets' buffers held
    expect(sentAfter).toBeLessThan(32 * MB);
    await stalled.closed;
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(4_500);
    expect(Date.now() - answeredAt).toBeLessThan(8_000);
  }, 30_000);
});
