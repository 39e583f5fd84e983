/**
 * What following a long task costs an agent whose client does not speak Tasks: the calls it
 * makes and the characters of tool results it reads (text + structuredContent, as a client that
 * passes both; structuredContent alone, as pydantic-ai passes it) to follow a 10-minute provision
 * with one approval in it (answered at once), per client kind.
 *
 * Time is scaled down by BENCH_FOLLOW_SCALE (default 20): the steps, --handle-wait-ms and
 * --progress-wait-ms alike, so the number of calls (the bounds' share of the run) is that of the
 * real 10 minutes; only the activities' progress lines (reported every 1.6 s, read every 2 s)
 * come more densely relative to the run.
 *
 *   npm run bench:follow                        about 1 minute
 *   BENCH_FOLLOW_SCALE=1 npm run bench:follow   the real 10 minutes
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureClientsVenv } from '../scripts/clients-venv';
const PROTOCOL = '2026-07-28';
import { BENCH_TOOLS, ROOT } from '../test/support/paths';
import { runPythonClient } from '../test/support/python-client';
import { startProcessStack } from '../test/support/servers';
import { logger, runBench, writeResults } from './script';
import { markdownTable } from './stats';

const SCALE = Number(process.env.BENCH_FOLLOW_SCALE ?? 20);
/** The real run: 10 steps of 1 minute, the approval after the second; the server's default bounds. */
const RUN = { steps: 10, stepMs: 60_000, approvalAfter: 2, handleWaitMs: 20_000, progressWaitMs: 300_000 };
const TARGET_WITH_PROGRESS = { calls: 5, chars: 3 * 1024 };
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'follow.json');
const APPROVE = { go_on: { action: 'accept', content: { approved: true } } };
const log = logger('bench:follow');

interface Followed {
  calls: number;
  chars: number;
  structuredChars: number;
  result: string;
}
type Call = (name: string, args: Record<string, unknown>) => Promise<any>;

/** The agent: call the tool, then task_respond (approving) or task_wait while a handle comes back. */
async function follow(call: Call, args: Record<string, unknown>): Promise<Followed> {
  const out: Followed = { calls: 0, chars: 0, structuredChars: 0, result: '' };
  let next: [string, Record<string, unknown>] = ['provision_with_approval', args];
  for (;;) {
    const result = await call(...next);
    const text = (result.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
    const structured = result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
    out.calls++;
    out.chars += text.length + structured.length;
    out.structuredChars += structured.length;
    const { taskId, status } = result.structuredContent ?? {};
    if (!taskId || !['working', 'input_required'].includes(status)) return { ...out, result: text };
    next = status === 'input_required' ? ['task_respond', { taskId, responses: APPROVE }] : ['task_wait', { taskId }];
  }
}

async function v2(url: string, progress: boolean): Promise<Call> {
  const client = new V2Client({ name: 'bench-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PROTOCOL } } });
  await client.connect(new V2Transport(new URL(url)));
  const options = progress ? { onprogress: () => undefined, resetTimeoutOnProgress: true, timeout: 60_000 } : { timeout: 600_000 };
  return (name, args) => client.callTool({ name, arguments: args }, options);
}

async function v1(url: string): Promise<Call> {
  const client = new V1Client({ name: 'bench-v1', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url)));
  return (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
}

function python(url: string, args: Record<string, unknown>, progress: boolean): Promise<Followed> {
  const venv = ensureClientsVenv({ log });
  const script = path.join(ROOT, 'bench', 'follow_agent.py');
  return runPythonClient(venv, script, [url, JSON.stringify(args), progress ? 'progress' : 'plain'], 3 * RUN.steps * RUN.stepMs);
}

runBench(async (cleanup) => {
  const scaled = (ms: number) => Math.max(1, Math.round(ms / SCALE));
  const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-follow-'));
  cleanup.add('ledger', undefined, async () => fs.rmSync(ledger, { recursive: true, force: true }));
  // by environment, so that the same bench measures a build from before --progress-wait-ms
  const stack = await startProcessStack(cleanup, {
    toolsModule: BENCH_TOOLS,
    env: { MCP_TASKS_LEDGER_DIR: ledger },
    serveEnv: { MCP_HANDLE_WAIT_MS: String(scaled(RUN.handleWaitMs)), MCP_PROGRESS_WAIT_MS: String(scaled(RUN.progressWaitMs)) },
  });
  const args = (kind: string) => ({ name: kind, steps: RUN.steps, stepMs: scaled(RUN.stepMs), approvalAfter: RUN.approvalAfter });
  const kinds: Array<[string, () => Promise<Followed>]> = [
    ['plain 2026 Client, with progress', async () => follow(await v2(stack.url, true), args('v2-progress'))],
    ['plain 2026 Client, without progress', async () => follow(await v2(stack.url, false), args('v2-plain'))],
    ['1.x SDK callTool (2025-11-25)', async () => follow(await v1(stack.url), args('v1'))],
    ['Python SDK mcp.Client, with progress', () => python(stack.url, args('py-progress'), true)],
    ['Python SDK mcp.Client, without progress', () => python(stack.url, args('py-plain'), false)],
  ];
  log(`following a ${(RUN.steps * RUN.stepMs) / 60_000}-minute provision scaled down ${SCALE}×, ${kinds.length} clients at once`);
  const results = await Promise.all(kinds.map(([, run]) => run()));
  const rows = kinds.map(([kind], i) => {
    const r = results[i];
    const target = kind.includes('with progress')
      ? r.calls <= TARGET_WITH_PROGRESS.calls && r.chars <= TARGET_WITH_PROGRESS.chars
        ? '≤ 5 calls, ≤ 3 KB: met'
        : '≤ 5 calls, ≤ 3 KB: MISSED'
      : '';
    return [kind, r.calls, r.chars.toLocaleString('en-US'), r.structuredChars.toLocaleString('en-US'), r.result, target];
  });
  console.log(
    `\nFollowing a ${(RUN.steps * RUN.stepMs) / 60_000}-minute provision with one approval (time scaled ${SCALE}×: the same calls)\n`,
  );
  console.log(markdownTable(['client', 'calls', 'characters read', 'of which structuredContent', 'result', 'target'], rows));
  writeResults({ scale: SCALE, run: RUN, results: Object.fromEntries(kinds.map(([k], i) => [k, results[i]])) }, RESULTS_FILE);
}, 'bench:follow');
