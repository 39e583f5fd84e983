/**
 * Bounds on what a caller can hold at the HTTP edge before it is even authenticated: a cap on
 * open connections, and deadlines for a request's headers and body to arrive.
 */
import fs from 'node:fs';
import type http from 'node:http';
import type net from 'node:net';

/** Node's default is 300 s: a slow body held its connection (and a descriptor) for five minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * A refused request whose body is still on its way: after its answer, at most this long and this
 * many bytes more are read and dropped before its connection closes. Closing at once reset the
 * connection under a client still sending (EPIPE), which then never read the answer.
 */
export const LINGER = { ms: 5_000, maxBytes: 4 * 1024 * 1024 };

/** Open files the process keeps for itself (Temporal's connections, logs, stdio...) besides its callers' sockets. */
export const FD_RESERVE = 128;
/** The cap when the open-file limit cannot be read or is high: what one replica serves comfortably. */
export const DEFAULT_MAX_CONNECTIONS = 4_096;

/**
 * The default cap on open connections: 4,096, but never more than the process's open-file
 * limit less a reserve, so sockets can never take the descriptors the process needs to accept
 * (EMFILE blocked every caller, the healthy ones too). Linux: from /proc/self/limits.
 */
export function defaultMaxConnections(limitsFile = '/proc/self/limits'): number {
  const softLimit = openFileLimit(limitsFile);
  return softLimit === undefined ? DEFAULT_MAX_CONNECTIONS : Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, softLimit - FD_RESERVE));
}

function openFileLimit(limitsFile: string): number | undefined {
  try {
    const line = fs
      .readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined; // "unlimited": no bound from it
  } catch {
    return undefined;
  }
}

/**
 * At most `max` open connections. At the cap, a new connection evicts the oldest one that has no
 * request in progress (still sending its headers, or idle between requests): those are what a
 * slow or idle caller holds, and the newcomer may be a healthy one. When every connection is
 * serving a request, the newcomer is closed at once (never queued: that would hold a descriptor).
 */
export function capConnections(server: http.Server, max: number): void {
  const inProgress = new Map<net.Socket, number>(); // requests in progress per socket; oldest socket first
  server.on('connection', (socket: net.Socket) => {
    if (inProgress.size >= max) {
      const idle = oldestIdle(inProgress);
      if (!idle) return void socket.destroy();
      inProgress.delete(idle);
      idle.destroy();
    }
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const count = inProgress.get(socket);
    if (count === undefined) return;
    inProgress.set(socket, count + 1);
    res.once('close', () => {
      const now = inProgress.get(socket);
      if (now !== undefined) inProgress.set(socket, now - 1);
    });
  });
}

function oldestIdle(inProgress: Map<net.Socket, number>): net.Socket | undefined {
  for (const [socket, count] of inProgress) if (count === 0) return socket;
  return undefined;
}

/** Reads and drops the rest of `req`'s body; resolves at its end, when it closes, or past `LINGER`. */
export function drainBody(req: http.IncomingMessage, linger = LINGER): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > linger.maxBytes) done();
    };
    const timer = setTimeout(done, linger.ms);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}
