/**
 * A client's timeout costs neither the task nor a duplicate (issue 32 item 3): a call without
 * Tasks dropped before its answer keeps its task for the retry grace, and an identical retry by
 * the same caller attaches to it; only an unclaimed task is ended after the grace.
 */
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { rpc } from '../support/mcp';
import { ROOT } from '../support/processes';
import { runPythonClient } from '../support/python-client';
import { fixturesModule } from '../support/in-process';
import { useStack } from '../support/stack';
import { listedIds, sleep, waitFor } from '../support/wait';
import { waitAndEchoTool } from '../../examples/demo/tools';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureVenv } = require('../../scripts/clients-venv') as {
  ensureVenv: (venv: string, packages: Record<string, string>, o?: { log?: (m: string) => void }) => string;
};

/** The OpenAI Agents SDK pinned (it brings the Python `mcp` SDK it was released with). */
const AGENTS_VENV = path.join(ROOT, '.venv-agents');
const SCRIPT = path.join(ROOT, 'test', 'clients', 'timeout_retry.py');
const PLAIN = {}; // a 2026 request that does not declare Tasks: task handles

const stack = useStack({ config: { handleWaitMs: 20_000 } });
/** Retries disabled per tool, and a short grace to see the claim guard end what nobody claimed. */
let onceUrl: string;
let shortUrl: string;
let authUrl: string;
beforeAll(async () => {
  const tools = [...fixturesModule().tools, { ...waitAndEchoTool, name: 'wait_and_echo_once', dedupe: false }];
  [{ url: onceUrl }, { url: shortUrl }, { url: authUrl }] = await Promise.all([
    stack.serve({ tools, config: { handleWaitMs: 20_000 } }),
    stack.serve({ config: { handleWaitMs: 1_000, retryGraceMs: 1_000 } }),
    stack.serve({ tokens: 'alice:tok-alice-0123456789,bob:tok-bob-0123456789', config: { handleWaitMs: 20_000 } }),
  ]);
});

/** The runs of waitAndEcho whose summary shows `text` (undefined while there is none, for waitFor). */
async function runsOf(text: string): Promise<string[] | undefined> {
  const ids = (await listedIds(stack.temporal.client, `TaskQueue = "${stack.taskQueue}" AND WorkflowType = "waitAndEcho"`)) ?? [];
  const summaries = await Promise.all(
    ids.map((id) =>
      stack.temporal.client.workflow
        .getHandle(id)
        .describe()
        .then((d) => d.staticSummary?.()),
    ),
  );
  const mine = ids.filter((_, i) => summaries[i]?.includes(`"${text}"`));
  return mine.length ? mine : undefined;
}

/** Calls `tool` and drops the request after `afterMs` (the client's timeout closing its connection). */
async function dropped(url: string, tool: string, args: Record<string, unknown>, afterMs: number): Promise<void> {
  const abort = new AbortController();
  const call = rpc(url, 'tools/call', { name: tool, arguments: args }, { capabilities: PLAIN, signal: abort.signal }).catch(
    () => 'dropped',
  );
  await sleep(afterMs);
  abort.abort();
  expect(await call).toBe('dropped');
}

test("a dropped call, retried the same: the retry gets the one task's result, and Temporal has one workflow", async () => {
  const args = { text: 'retried-once', seconds: 3 };
  await dropped(stack.url, 'wait_and_echo', args, 1_000);
  const retry = await rpc(
    stack.url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { seconds: 3, text: 'retried-once' } },
    { capabilities: PLAIN },
  );
  expect(retry.body.result.content).toEqual([{ type: 'text', text: 'retried-once' }]);
  const runs = await waitFor(() => runsOf('retried-once'));
  expect(runs).toHaveLength(1);
  expect((await stack.temporal.client.workflow.getHandle(runs[0]).describe()).status.name).toBe('COMPLETED');
});

test('a call that got its answer, made again, is a new call: a task of its own', async () => {
  const args = { text: 'answered-twice', seconds: 0 };
  for (let i = 0; i < 2; i++) {
    const answer = await rpc(stack.url, 'tools/call', { name: 'wait_and_echo', arguments: args }, { capabilities: PLAIN });
    expect(answer.body.result.content).toEqual([{ type: 'text', text: 'answered-twice' }]);
  }
  expect(await waitFor(async () => ((await runsOf('answered-twice'))?.length === 2 ? 2 : undefined))).toBe(2);
});

test('other arguments start a task of their own', async () => {
  await dropped(stack.url, 'wait_and_echo', { text: 'args-a', seconds: 2 }, 300);
  const other = await rpc(
    stack.url,
    'tools/call',
    { name: 'wait_and_echo', arguments: { text: 'args-b', seconds: 2 } },
    { capabilities: PLAIN },
  );
  expect(other.body.result.content).toEqual([{ type: 'text', text: 'args-b' }]);
  expect(await waitFor(() => runsOf('args-a'))).toHaveLength(1);
});

test("another authenticated caller making the same call gets a task of its own, never the first caller's", async () => {
  const args = { text: 'two-callers', seconds: 2 };
  const as = (token: string) => ({ capabilities: PLAIN, headers: { authorization: `Bearer ${token}` } });
  const abort = new AbortController();
  const first = rpc(
    authUrl,
    'tools/call',
    { name: 'wait_and_echo', arguments: args },
    { ...as('tok-alice-0123456789'), signal: abort.signal },
  ).catch(() => 'dropped');
  await sleep(500);
  abort.abort();
  await first;
  const bob = await rpc(authUrl, 'tools/call', { name: 'wait_and_echo', arguments: args }, as('tok-bob-0123456789'));
  expect(bob.body.result.content).toEqual([{ type: 'text', text: 'two-callers' }]);
  expect(await waitFor(async () => ((await runsOf('two-callers'))?.length === 2 ? 2 : undefined))).toBe(2);
});

test("a tool with dedupe: false: the dropped call's task is cancelled", async () => {
  const args = { text: 'not-deduped', seconds: 30 };
  await dropped(onceUrl, 'wait_and_echo_once', args, 1_000);
  const [first] = await waitFor(() => runsOf('not-deduped'));
  const end = await stack.temporal.client.workflow
    .getHandle(first)
    .result()
    .catch((err: unknown) => err);
  expect(end).toBeInstanceOf(WorkflowFailedError);
  expect((await stack.temporal.client.workflow.getHandle(first).describe()).status.name).toBe('CANCELLED');
});

test('past the grace, an unclaimed task ends failed (claim guard) and a retry starts anew', async () => {
  const args = { text: 'past-grace', seconds: 3600 };
  await dropped(shortUrl, 'wait_and_echo', args, 300);
  const [first] = await waitFor(() => runsOf('past-grace'));
  const end = await stack.temporal.client.workflow
    .getHandle(first)
    .result()
    .catch((err: unknown) => err);
  expect((end as WorkflowFailedError).cause).toMatchObject({ type: 'McpTaskUnclaimed' });
  await dropped(shortUrl, 'wait_and_echo', args, 300);
  expect(await waitFor(async () => ((await runsOf('past-grace'))?.length === 2 ? 2 : undefined))).toBe(2);
}, 60_000);

describe('Python clients with short timeouts', () => {
  let python: string;
  beforeAll(() => {
    python = ensureVenv(AGENTS_VENV, { 'openai-agents': '0.24.0' }, { log: (m) => console.log(m) });
  }, 600_000);

  test.each([
    ['agents', 'OpenAI Agents SDK 0.24 (default 5 s session timeout), a tool of 8 s'],
    ['mcp', 'Python SDK ClientSession at a 3 s read timeout, a tool of 8 s'],
  ])(
    '%s: %s: the retry reaches the one task and its result',
    async (client) => {
      const label = `python-${client}-retry`;
      const out = await runPythonClient(python, SCRIPT, [stack.url, client, label, '8']);
      expect(out.firstError).toMatch(/time/i);
      expect(out.text).toBe(label);
      expect(await waitFor(() => runsOf(label))).toHaveLength(1);
    },
    120_000,
  );
});
