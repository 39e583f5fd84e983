/**
 * Soak (issue 24 item 10): an hour of mixed traffic compressed into a few minutes, to see leaks
 * as a slope. Many authenticated callers at once, each looping over: tasks started (short
 * timers and approvals) and answered or cancelled, tasks/get, tools/list, 2026 subscriptions
 * and 2025 tasks/result streams opened and dropped at random moments, and hostile requests
 * mixed in (4 MB of `[`, bodies over the size limit, garbage, foreign cursors and ids).
 * serve's RSS and open file descriptors are sampled every second; the printout compares the
 * first and the last window (RSS, fds, p50/p99 of the well-formed requests) and fits a slope.
 *
 *   npm run build && node build/bench/soak.js                  180 s, 24 callers
 *   SOAK_S=600 SOAK_CALLERS=48 node build/bench/soak.js
 *   SOAK_HOSTILE=0 node build/bench/soak.js                    the same without hostile requests
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { buildRequest, type Revision, parseBody } from '../test/support/mcp-client';
import type { Cleanup } from '../test/support/processes';
import { sleep } from '../test/support/wait';
import { fdCount, machineBusyPercent, machineInfo, readRssMb, startInfra } from './infra';
import { logger, runBench, runInThread } from './script';
import { fmt, markdownTable, summarize } from './stats';

const SECONDS = Number(process.env.SOAK_S ?? 180);
const CALLERS = Number(process.env.SOAK_CALLERS ?? 24);
/** SOAK_HOSTILE=0: no hostile requests (to tell their share of a slope). */
const HOSTILE = process.env.SOAK_HOSTILE !== '0';
const WINDOW_S = Math.min(30, Math.floor(SECONDS / 4));
const log = logger('bench:soak');
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

/** What the callers count: [time, ms] of each well-formed request, errors by code, streams dropped. */
interface Stats {
  latencies: Array<[number, number]>;
  errors: Record<string, number>;
  streams: number;
  hostile: number;
  failures: number;
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const num = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return den ? num / den : NaN;
}

function caller(url: string, token: string, stats: Stats, until: number): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  /** A timed, well-formed request: its latency counts (a JSON-RPC error is counted too). */
  const rpc = async (method: string, params: Record<string, unknown> = {}): Promise<any> => {
    const started = performance.now();
    const { headers, body } = buildRequest(method, params, { headers: auth, clientName: 'soak' });
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    stats.latencies.push([Date.now(), performance.now() - started]);
    const reply = parseBody(text);
    if (reply?.error) {
      stats.errors[reply.error.code] = (stats.errors[reply.error.code] ?? 0) + 1;
      return undefined;
    }
    return reply?.result;
  };
  const mine: string[] = [];
  /** A stream opened and dropped after a random time (a client that goes away). */
  const dropAfter = async (method: string, params: Record<string, unknown>, revision: Revision, ms: number) => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ms);
    try {
      const { headers, body } = buildRequest(method, params, { revision, headers: auth, clientName: 'soak' });
      const res = await fetch(url, { method: 'POST', headers, body, signal: abort.signal });
      await res.text();
    } catch {
      // dropped by us
    } finally {
      clearTimeout(timer);
      stats.streams++;
    }
  };
  const actions = [
    async () => {
      const created = await rpc('tools/call', {
        name: 'wait_and_echo',
        arguments: { text: 'soak', seconds: 1 + Math.floor(Math.random() * 5) },
      });
      if (created?.taskId) mine.push(created.taskId);
    },
    async () => {
      const created = await rpc('tools/call', { name: 'approve_expense', arguments: { amount: 1, description: 'soak' } });
      if (!created?.taskId) return;
      await sleep(300 + Math.random() * 700);
      if (Math.random() < 0.7)
        await rpc('tasks/update', {
          taskId: created.taskId,
          inputResponses: { approval: { action: 'accept', content: { approved: true } } },
        });
      else await rpc('tasks/cancel', { taskId: created.taskId });
    },
    async () => mine.length && (await rpc('tasks/get', { taskId: pick(mine) })),
    async () => mine.length && (await rpc('tasks/get', { taskId: pick(mine).replace(/.$/, 'Q') })), // unknown id
    async () => rpc('tools/list'),
    async () =>
      mine.length &&
      (await dropAfter('subscriptions/listen', { notifications: { taskIds: mine.slice(-3) } }, '2026-07-28', 200 + Math.random() * 3000)),
    async () => mine.length && (await dropAfter('tasks/result', { taskId: pick(mine) }, '2025-11-25', 200 + Math.random() * 3000)),
    async () => mine.length && (await rpc('tasks/cancel', { taskId: pick(mine) })),
  ];
  return (async () => {
    while (Date.now() < until) {
      await pick(actions)().catch(() => stats.failures++);
      if (mine.length > 50) mine.splice(0, 25);
      await sleep(Math.random() * 100);
    }
  })();
}

/**
 * Hostile requests, from a worker thread (building and sending 4 MB bodies would stall the
 * measuring event loop): 4 MB of `[`, a body over the size limit, cut-off JSON, a 2025
 * tasks/list with a cursor that is not ours.
 */
async function hostileLoop({ url, token, until, lanes }: { url: string; token: string; until: number; lanes: number }): Promise<number> {
  const bodies = [
    Buffer.from('['.repeat(4 * 1024 * 1024 - 10)),
    Buffer.from(`"${'x'.repeat(5 * 1024 * 1024)}"`),
    Buffer.from('{"jsonrpc":"2.0","id":1,'),
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/list', params: { cursor: 'AAAA.BBBB' } })),
  ];
  const auth = { authorization: `Bearer ${token}` };
  let sent = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (Date.now() < until) {
        const i = Math.floor(Math.random() * bodies.length);
        const { headers } =
          i === 3
            ? buildRequest('tasks/list', {}, { revision: '2025-11-25', headers: auth })
            : buildRequest('tools/call', { name: 'wait_and_echo' }, { headers: auth });
        try {
          await (await fetch(url, { method: 'POST', headers, body: bodies[i] })).arrayBuffer();
        } catch {
          // the server may cut a body it refused
        }
        sent++;
        await sleep(Math.random() * 200);
      }
    }),
  );
  return sent;
}

async function main(cleanup: Cleanup): Promise<void> {
  const busy = await machineBusyPercent();
  const tokens = Array.from({ length: CALLERS }, (_, i) => [`caller-${i}`, `soak-token-${i}-0123456789`]);
  const tokensFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'soak-')), 'tokens');
  fs.writeFileSync(tokensFile, tokens.map(([p, t]) => `${p}:${t}`).join('\n'));
  {
    const infra = await startInfra(cleanup, { pollIntervalMs: 1000, serveArgs: ['--auth-tokens-file', tokensFile] });
    const pid = infra.pids.server;
    const samples: Array<{ t: number; rss: number; fds: number }> = [];
    const sampler = setInterval(() => samples.push({ t: Date.now(), rss: readRssMb(pid), fds: fdCount(pid) }), 1000);
    const stats: Stats = { latencies: [], errors: {}, streams: 0, hostile: 0, failures: 0 };
    const startedAt = Date.now();
    const until = startedAt + SECONDS * 1000;
    log(`${CALLERS} callers for ${SECONDS} s`);
    const hostile = !HOSTILE
      ? Promise.resolve(0)
      : runInThread<number>(__filename, { url: infra.url, token: tokens[0][1], until, lanes: Math.max(2, Math.floor(CALLERS / 6)) });
    await Promise.all(tokens.map(([, token]) => caller(infra.url, token, stats, until)));
    stats.hostile = await hostile;
    await sleep(8000); // the last tasks end, streams close
    samples.push({ t: Date.now(), rss: readRssMb(pid), fds: fdCount(pid) });
    clearInterval(sampler);

    const windowOf = (from: number, to: number) => {
      const s = samples.filter((x) => x.t >= from && x.t < to);
      const l = stats.latencies.filter(([t]) => t >= from && t < to).map(([, ms]) => ms);
      const sum = summarize(l);
      return {
        rss: s.reduce((a, x) => a + x.rss, 0) / s.length,
        fds: s.reduce((a, x) => a + x.fds, 0) / s.length,
        p50: sum.p50,
        p99: sum.p99,
        rate: l.length / WINDOW_S,
      };
    };
    const first = windowOf(startedAt, startedAt + WINDOW_S * 1000);
    const last = windowOf(until - WINDOW_S * 1000, until);
    const after = samples[samples.length - 1];
    const pts = (key: 'rss' | 'fds') =>
      samples.filter((x) => x.t < until).map((x): [number, number] => [(x.t - startedAt) / 60_000, x[key]]);
    console.log(`\n## Soak: ${CALLERS} callers, ${SECONDS} s, windows of ${WINDOW_S} s\n`);
    console.log(
      markdownTable(
        ['', `first ${WINDOW_S} s`, `last ${WINDOW_S} s`, '8 s after the load', 'slope over the run'],
        [
          ['serve RSS (MB)', first.rss, last.rss, after.rss, `${fmt(slope(pts('rss')), 2)} MB/min`],
          ['serve open fds', first.fds, last.fds, after.fds, `${fmt(slope(pts('fds')), 2)} /min`],
          ['p50 latency, well-formed requests (ms)', first.p50, last.p50, '–', '–'],
          ['p99 latency, well-formed requests (ms)', first.p99, last.p99, '–', '–'],
          ['well-formed requests/s', first.rate, last.rate, '–', '–'],
        ],
      ),
    );
    console.log(
      `\nstreams opened and dropped: ${stats.streams}; hostile requests: ${stats.hostile}; JSON-RPC errors by code: ${JSON.stringify(stats.errors)}; transport failures: ${stats.failures}`,
    );
    console.log(`machine: ${JSON.stringify({ ...machineInfo(), backgroundCpuPercentAtStart: busy })}`);
  }
}

if (isMainThread) runBench(main);
else {
  hostileLoop(workerData).then((sent) => parentPort!.postMessage(sent));
}
