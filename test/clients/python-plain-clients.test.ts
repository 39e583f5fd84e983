/**
 * Python clients that do not speak Tasks (the SDK's `mcp.Client` 2.3.0 and FastMCP 4.1.4's plain
 * `Client`, from PyPI into the git-ignored .venv-clients/) following task handles with task_*.
 */
import { runPythonClient } from '../support/python-client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureClientsVenv } = require('../../scripts/clients-venv') as { ensureClientsVenv: (o?: { log?: (m: string) => void }) => string };

const SCRIPT = path.join(ROOT, 'test', 'clients', 'plain_client.py');
const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));
let python: string;

beforeAll(() => {
  python = ensureClientsVenv({ log: (m) => console.log(m) });
}, 600_000);

// FastMCP's Client sends a progressToken on every call: the same 2 s bound for it, so it gets handles to follow
const stack = useStack({ config: { handleWaitMs: 2000, progressWaitMs: 2000 }, workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });
/** The default progress bound (5 min): a call with a progress callback is held to the end. */
let progressUrl: string;
beforeAll(async () => {
  ({ url: progressUrl } = await stack.serve({ config: { handleWaitMs: 2000 } }));
});

function plain(client: string, scenario: string, url = stack.url): Promise<any> {
  return runPythonClient(python, SCRIPT, [url, client, scenario]);
}

describe.each(['mcp', 'fastmcp'])('%s plain client', (client) => {
  test('approve_expense: the handle names the question, task_respond answers it', async () => {
    const out = await plain(client, 'respond');
    expect(out.pending).toEqual(['approval']);
    expect(out.isError).toBe(false);
    expect(out.text).toBe('Expense of 12 for "python plain" was approved. Comment: from python');
  });

  test("approve_expense: answered in the client's own elicitation form", async () => {
    const out = await plain(client, 'elicit');
    expect(out.text).toBe('Expense of 13 for "python form" was approved.');
    expect(out.elicitations).toHaveLength(1);
  });

  test('provision_environment past the bound: followed to its result with task_wait', async () => {
    const out = await plain(client, 'provision');
    expect(out.first).toBe('working');
    expect(out.text).toBe('Environment py-env provisioned in 3 steps.');
  });

  test('task_cancel: the steps done are undone', async () => {
    const out = await plain(client, 'cancel');
    expect(out.final).toBe('cancelled');
    await waitFor(async () => {
      const files = fs.readdirSync(ledger).filter((f) => f.includes(out.taskId));
      const done = files.filter((f) => f.startsWith('provision-')).length;
      return done > 0 && files.filter((f) => f.startsWith('deprovision-')).length === done ? true : undefined;
    });
  });
});

test.each([
  ["the SDK's mcp.Client with a progress callback", 'mcp'],
  ["FastMCP's Client with a progress handler", 'fastmcp'],
])('%s: one call past the bound, progress growing with done/total and the statusMessage', async (_name, client) => {
  const out = await plain(client, 'progress', progressUrl);
  expect(out.handle).toBe(false); // the tool's own result, in one call
  expect(out.text.split('\n').length).toBeGreaterThanOrEqual(5000); // the CSV itself
  const values = out.seen.map((p: { progress: number }) => p.progress);
  expect(values.length).toBeGreaterThan(1);
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
  expect(out.seen).toEqual(
    expect.arrayContaining([expect.objectContaining({ total: 5000, message: expect.stringMatching(/^exporting rows/) })]),
  );
});
