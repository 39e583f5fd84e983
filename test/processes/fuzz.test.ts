/** 10,000 generated hostile requests: every reply well-formed, server up, memory flat, tasks intact. */
import fc from 'fast-check';
import fs from 'node:fs';
import { call, DECLARING, PROTOCOL, pollTask, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';

const REQUESTS = 10_000;
const CONCURRENCY = 16;
let temporal: TestTemporal;

stopAllAfter(() => temporal);

const METHODS = [
  'tools/call',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tools/list',
  'server/discover',
  'initialize',
  'ping',
  'tasks/list',
  'tasks/result',
  'resources/read',
  'nope/nope',
];
const TOOLS = ['wait_and_echo', 'approve_expense', 'provision_environment', 'collect_approvals', 'export_report', 'missing', ''];

// mostly well-shaped requests with one field wrong, so most reach the handlers
const often = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: bad, weight: 1 });

const weird = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ minLength: 20_000, maxLength: 60_000 }),
  fc.constantFrom(
    'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'task_',
    '../../etc/passwd',
    '\u0000',
    '𝕏'.repeat(300),
    'task_' + 'é'.repeat(32),
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

const envelope = fc.oneof(
  {
    arbitrary: fc.constant({
      'io.modelcontextprotocol/protocolVersion': PROTOCOL,
      'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': DECLARING,
    }),
    weight: 6,
  },
  fc.constant({ 'io.modelcontextprotocol/protocolVersion': PROTOCOL, 'io.modelcontextprotocol/clientCapabilities': {} }),
  fc.record({ 'io.modelcontextprotocol/protocolVersion': weird, 'io.modelcontextprotocol/clientCapabilities': weird }),
  weird,
);

// sync calls of a real tool must not wait on a long timer: seconds stay 0 or invalid
const args = fc.oneof(
  fc.record({ text: weird, seconds: fc.oneof(fc.constant(0), fc.double(), fc.integer({ min: -10, max: -1 }), weird) }),
  fc.record({ amount: fc.oneof(fc.double(), weird), description: weird }),
  fc.dictionary(fc.string(), weird),
  weird,
);

const params = fc.oneof(
  {
    arbitrary: fc.record(
      { name: often(fc.constantFrom(...TOOLS), weird), arguments: args, _meta: envelope, task: weird },
      { requiredKeys: ['name', '_meta'] },
    ),
    weight: 4,
  },
  {
    arbitrary: fc.record(
      { taskId: weird, inputResponses: fc.oneof(fc.dictionary(fc.string(), weird), weird), _meta: envelope },
      { requiredKeys: ['_meta'] },
    ),
    weight: 4,
  },
  { arbitrary: weird, weight: 1 },
);

const message = fc.oneof(
  {
    arbitrary: fc.record(
      {
        jsonrpc: often(fc.constant('2.0'), weird),
        id: often(fc.integer(), weird),
        method: often(fc.constantFrom(...METHODS), weird),
        params,
      },
      { requiredKeys: ['method'] },
    ),
    weight: 8,
  },
  { arbitrary: weird, weight: 1 },
);

const body = fc.oneof(
  { arbitrary: message.map((m) => JSON.stringify(m)), weight: 8 },
  fc.array(message, { maxLength: 5 }).map((batch) => JSON.stringify(batch)),
  message.map((m) => JSON.stringify(m)).chain((text) => fc.nat({ max: Math.max(1, text.length - 1) }).map((n) => text.slice(0, n))),
  fc.string(),
);

const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...METHODS, ...TOOLS, PROTOCOL, '2025-11-25', 'v999'),
  fc.string({ maxLength: 200 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
);
// null: derive the header from the body (a truthful client), so most requests get past the header checks
const routingHeader = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: fc.option(headerValue), weight: 1 },
) as fc.Arbitrary<string | null>;
const request = fc.record({
  body,
  contentType: often(
    fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    fc.constantFrom('text/plain', '', 'application/xml'),
  ),
  method: routingHeader,
  name: routingHeader,
  version: fc.oneof({ arbitrary: fc.constant(PROTOCOL), weight: 4 }, { arbitrary: fc.option(headerValue), weight: 1 }) as fc.Arbitrary<
    string | null
  >,
});

const crashes: string[] = [];

const statuses: Record<number, number> = {};

type Outcome = 'jsonrpc-error' | 'jsonrpc-result' | 'http-4xx' | 'accepted' | 'timeout' | 'malformed' | 'crash';

type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

async function send(url: string, r: Request): Promise<Outcome> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (r.contentType) headers['content-type'] = r.contentType;
  const truthful = routingOf(r.body);
  const method = r.method ?? truthful.method;
  const name = r.name ?? truthful.name;
  if (method !== undefined) headers['mcp-method'] = method;
  if (name !== undefined) headers['mcp-name'] = name;
  if (r.version !== null) headers['mcp-protocol-version'] = r.version;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: r.body, signal: AbortSignal.timeout(5000) });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') return 'timeout';
    crashes.push(
      `fetch: ${(err as Error).message} ${(err as Error & { cause?: Error }).cause?.message} ${JSON.stringify(r).slice(0, 300)}`,
    );
    return 'crash';
  }
  const text = await res.text().catch(() => '');
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  if (res.status >= 500) {
    crashes.push(`${res.status} ${text.slice(0, 200)} for ${JSON.stringify(r).slice(0, 300)}`);
    return 'crash';
  }
  if (res.status >= 400) return 'http-4xx';
  if (res.status === 202 && text === '') return 'accepted';
  return classify(text);
}

/** The Mcp-Method / Mcp-Name a conforming client would send for this body (header-safe values only). */
function routingOf(text: string): { method?: string; name?: string } {
  try {
    const m = JSON.parse(text);
    const p = m?.params ?? {};
    const name = p.taskId ?? p.name ?? p.uri;
    const safe = (v: unknown) => (typeof v === 'string' && /^[\x20-\x7e]*$/.test(v) && v.length < 4000 ? v : undefined);
    return { method: safe(m?.method), name: safe(name) };
  } catch {
    return {};
  }
}

function classify(text: string): Outcome {
  const frames =
    text.startsWith('{') || text.startsWith('[')
      ? [text]
      : text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5));
  try {
    const last = JSON.parse(frames[frames.length - 1]);
    const replies = Array.isArray(last) ? last : [last];
    if (
      !replies.every(
        (m) => m?.jsonrpc === '2.0' && ('result' in m || (typeof m.error?.code === 'number' && typeof m.error?.message === 'string')),
      )
    )
      return 'malformed';
    return replies.some((m) => 'error' in m) ? 'jsonrpc-error' : 'jsonrpc-result';
  } catch {
    return 'malformed';
  }
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

test(`${REQUESTS} fuzzed requests: well-formed replies, no crash, flat memory, running tasks complete`, async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
  const { url, proc } = await startServe(temporal.address);
  const pid = proc.child.pid!;
  // sample first: generating blocks the event loop, which would stale the client's keep-alive sockets
  const samples = fc.sample(request, { numRuns: REQUESTS, seed: 20261202 });
  const tasks = await Promise.all(
    Array.from({ length: 5 }, (_, i) => call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: `t${i}`, seconds: 4 } })),
  );

  const counts: Record<Outcome, number> = {
    'jsonrpc-error': 0,
    'jsonrpc-result': 0,
    'http-4xx': 0,
    accepted: 0,
    timeout: 0,
    malformed: 0,
    crash: 0,
  };
  let next = 0;
  let warmRss = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < samples.length) {
        const i = next++;
        if (i === REQUESTS / 2) warmRss = rssMb(pid); // V8's heap settles in the first thousands
        counts[await send(url, samples[i])]++;
      }
    }),
  );
  const endRss = rssMb(pid);

  const results = await Promise.all(tasks.map((t) => pollTask(url, t.taskId)));
  console.log(
    `[fuzz] sent=${REQUESTS} ${Object.entries(counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(
        ' ',
      )} rssWarmMb=${warmRss} rssEndMb=${endRss} tasksCompleted=${results.filter((t) => t.status === 'completed').length}/5 statuses=${JSON.stringify(statuses)}`,
  );
  if (crashes.length) console.log(crashes.slice(0, 5).join('\n'));
  expect(counts.crash).toBe(0);
  expect(counts.malformed).toBe(0);
  expect(proc.child.exitCode).toBeNull();
  expect((await call(url, 'tools/list')).tools.length).toBeGreaterThan(0);
  expect(results.map((t) => [t.status, t.result.content[0].text])).toEqual(tasks.map((_, i) => ['completed', `t${i}`]));
  expect(endRss - warmRss).toBeLessThan(64);
}, 600_000);
