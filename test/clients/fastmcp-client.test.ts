/**
 * FastMCP's Python client (fastmcp 4.1.4 + fastmcp-tasks 4.1.4, from PyPI into the git-ignored
 * .venv-clients/) against the DEFAULT server. FastMCP never sends Mcp-Name on tasks/*: a server
 * that refuses missing routing headers fails every one of these with -32020.
 */
import { runPythonClient } from '../support/python-client';
import path from 'node:path';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureClientsVenv } = require('../../scripts/clients-venv') as { ensureClientsVenv: (o?: { log?: (m: string) => void }) => string };

const SCRIPT = path.join(ROOT, 'test', 'clients', 'fastmcp_client.py');
let python: string;

// the venv first (about 40 s when it is new, instant after): a missing PyPI fails here, loudly
beforeAll(() => {
  const started = Date.now();
  python = ensureClientsVenv({ log: (m) => console.log(m) });
  console.log(`clients venv ready in ${Date.now() - started} ms`);
}, 600_000);

const stack = useStack();

/** Runs one scenario of the Python client; resolves with its JSON output, or rejects with its stderr. */
function fastmcp(scenario: string): Promise<any> {
  return runPythonClient(python, SCRIPT, [stack.url, scenario]);
}

test('call_tool runs a wait_and_echo task to completion (polling transparently)', async () => {
  expect(await fastmcp('echo')).toEqual({ text: 'hello fastmcp', isError: false });
});

test('approve_expense is answered through the elicitation handler', async () => {
  const out = await fastmcp('approve');
  expect(out.isError).toBe(false);
  expect(out.text).toMatch(/approved/i);
  expect(out.text).toContain('ok from fastmcp');
  expect(out.elicitations).toHaveLength(1);
  expect(out.elicitations[0].schema.properties).toHaveProperty('approved');
});

test('call_tool_task + cancel ends provision_environment cancelled', async () => {
  const out = await fastmcp('cancel');
  expect(out.taskId).toMatch(/^task_/);
  expect(out.first).toBe('working');
  expect(out.final).toBe('cancelled');
});
