/**
 * Workflows of another SDK as MCP task tools (issue 12): a Temporal PYTHON worker
 * (examples/python/, temporalio pinned, installed into the git-ignored .venv-examples/) runs a
 * plain workflow and one that follows docs/contract.md; `serve` exposes them through
 * examples/python/tools.json next to the TypeScript tools of the default tools module.
 */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TASK_RUNTIME_REVISION } from '../../src/contract';
import { fixturesModule } from '../support/in-process';
import { call, rpc, taskSession } from '../support/mcp';
import { type ChildHandle, ROOT, spawnCli, spawnProcess } from '../support/processes';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { toolsFromFile } from '../../src/mcp/workflow-tools';
import { waitFor } from '../support/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureExamplesVenv } = require('../../scripts/python-examples-venv') as {
  ensureExamplesVenv: (o?: { log?: (m: string) => void }) => string;
};

const PYTHON_DIR = path.join(ROOT, 'examples', 'python');
const TOOLS_FILE = path.join(PYTHON_DIR, 'tools.json');
const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-')), 'ledger.jsonl');

let temporal: TestTemporal;
let url: string;
let pythonWorker: ChildHandle | undefined;

// the TypeScript tools' worker and the server in process; the server serves the tools file too (as --tools does)
const stack = useStack({ noServer: true });
beforeAll(async () => {
  // the venv first (a few seconds when new with a warm pip cache, instant after): a missing PyPI fails here, loudly
  const venvStarted = Date.now();
  const python = ensureExamplesVenv({ log: (m) => console.log(m) });
  console.log(`python examples venv ready in ${Date.now() - venvStarted} ms`);
  temporal = stack.temporal;
  pythonWorker = await startPythonWorker(python, temporal.address);
  ({ url } = await stack.serve({ tools: [...fixturesModule().tools, ...toolsFromFile(TOOLS_FILE)] }));
}, 600_000);

// the Python worker is ours: stopped by its pid (SIGTERM, SIGKILL if it lingers)
afterAll(() => pythonWorker?.stop('SIGTERM', 10_000));

async function startPythonWorker(python: string, address: string): Promise<ChildHandle> {
  const worker = spawnProcess(python, [path.join(PYTHON_DIR, 'worker.py')], {
    cwd: PYTHON_DIR,
    env: { TEMPORAL_ADDRESS: address, TASK_QUEUE: 'python-tools', LEDGER_FILE: ledger, PYTHONUNBUFFERED: '1' },
    name: 'the Python worker',
  });
  await worker.waitFor(/python worker polling task queue python-tools/);
  return worker;
}

const ledgerLines = (): Array<{ event: string; taskId: string; step?: number; applied?: boolean }> =>
  fs.existsSync(ledger)
    ? fs
        .readFileSync(ledger, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const textOf = (result: any) => result.content.map((c: any) => c.text).join('');

test("arguments failing a file tool's JSON Schema get -32602 with the reasons, and no workflow starts", async () => {
  const { body } = await rpc(url, 'tools/call', {
    name: 'approve_deployment',
    arguments: { service: 'Not A Name!', version: '1.0', extra: true },
  });
  expect(body.error.code).toBe(-32602);
  expect(body.error.message).toMatch(/approve_deployment/);
  expect(body.error.message).toMatch(/pattern/);
  expect(body.error.message).toMatch(/additional properties/);
  // a valid call after it shows up in visibility; the invalid one never did
  const ok = await call(url, 'tools/call', { name: 'greet_python', arguments: { name: 'visibility' } }, { capabilities: {} }); // optional, not declaring: synchronous
  const listed = async (query: string) => {
    const ids: string[] = [];
    for await (const wf of temporal.client.workflow.list({ query })) ids.push(wf.workflowId);
    return ids;
  };
  await waitFor(async () => ((await listed(`McpTool = "greet_python"`)).length > 0 ? true : undefined));
  expect(ok.content[0].text).toBe('Hello, visibility!');
  expect(await listed(`McpTool = "approve_deployment"`)).toEqual([]);
  // the Go and Java examples' approvals share the workflow type (on this shared server): Python's queue only
  expect(await listed(`WorkflowType = "ApproveDeploymentWorkflow" AND TaskQueue = "python-tools"`)).toEqual([]);
});

test("tools/list has the TypeScript tools and the tools file's side by side", async () => {
  const { tools } = await call(url, 'tools/list');
  const byName = Object.fromEntries(tools.map((t: any) => [t.name, t]));
  expect(byName.wait_and_echo).toBeDefined(); // TypeScript, from the tools module
  expect(byName.greet_python).toMatchObject({ title: 'Greet (Python)', inputSchema: { type: 'object', required: ['name'] } });
  expect(byName.approve_deployment.outputSchema).toMatchObject({ type: 'object', required: ['service', 'version', 'deployed'] });
});

test('a plain Python workflow (knows nothing of MCP) runs as a task: status from Temporal, string → text', async () => {
  const { session, close } = await taskSession(url);
  try {
    const execution = await session.callTool('greet_python', { name: 'Ada', seconds: 1 });
    expect(execution.kind).toBe('task');
    const taskId = (execution as any).handle.taskId as string;
    const running = await call(url, 'tasks/get', { taskId });
    expect(running.status).toBe('working');
    expect(running.statusMessage).toBeUndefined();
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as any;
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(result.structuredContent).toBeUndefined();
    // started like any task: by type name on the tool's task queue, with the memo, summary and search attributes
    const described = await temporal.client.workflow.getHandle(taskId).describe();
    expect(described.type).toBe('GreetWorkflow');
    expect(described.taskQueue).toBe('python-tools');
    expect(described.memo?.mcpTask).toMatchObject({ tool: 'greet_python' });
    expect(described.searchAttributes.McpTool).toEqual(['greet_python']);
    expect(await described.staticSummary()).toBe('greet_python(name="Ada", seconds=1)');
    expect(described.raw.executionConfig?.workflowExecutionTimeout?.seconds?.toString()).toBe(String(2 * 3600));
  } finally {
    await close();
  }
});

test('a Python workflow following the contract: statusMessage, a form elicitation answered, structuredContent', async () => {
  const seen: Array<{ request: any; task: any }> = [];
  const { session, close } = await taskSession(url, async (request: any, context: any) => {
    seen.push({ request, task: await call(url, 'tasks/get', { taskId: context.taskId }) });
    return { action: 'accept', content: { approved: true, comment: 'ship it' } } as any;
  });
  try {
    const execution = await session.callTool('approve_deployment', { service: 'billing', version: '2.4.1' });
    const taskId = (execution as any).handle.taskId as string;
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as any;
    expect(seen).toHaveLength(1);
    expect(seen[0].request).toMatchObject({ kind: 'elicitation', params: { message: 'Deploy billing 2.4.1?' } });
    expect(seen[0].task).toMatchObject({ status: 'input_required', statusMessage: 'waiting for approval to deploy billing 2.4.1' });
    expect(seen[0].task.inputRequests.approval.params.requestedSchema.required).toEqual(['approved']);
    expect(result.structuredContent).toMatchObject({ service: 'billing', version: '2.4.1', deployed: true, comment: 'ship it' });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(
      ledgerLines()
        .filter((l) => l.taskId === taskId)
        .map((l) => l.event),
    ).toEqual(['reserve', 'deploy']);
    const described = await temporal.client.workflow.getHandle(taskId).describe();
    expect(described.searchAttributes.McpTaskStatus).toEqual(['completed']);
    expect(described.memo?.mcpProgress).toMatchObject({ status: 'working', statusMessage: 'deploying billing 2.4.1', inputRequests: {} });
    // started at TypeScript runtime revision 2 like every task; the Python contract ignores the field
    expect(described.memo?.mcpTask).toMatchObject({ runtime: TASK_RUNTIME_REVISION });
  } finally {
    await close();
  }
});

test('cancelling a contract workflow while it waits for approval runs its compensation and ends cancelled', async () => {
  let asked!: () => void;
  const waiting = new Promise<void>((r) => (asked = r));
  const { session, close } = await taskSession(url, async (_request: any, context: any) => {
    asked();
    // never answered: the client's cancel aborts the pending input handler
    return new Promise((_resolve, reject) =>
      context.signal?.addEventListener('abort', () => reject(context.signal.reason), { once: true }),
    );
  });
  try {
    const execution = await session.callTool('approve_deployment', { service: 'search', version: '9.0' });
    const taskId = (execution as any).handle.taskId as string;
    const settled = execution.settle();
    await waiting;
    await execution.cancel();
    const { outcome } = await settled;
    expect(outcome).toMatchObject({ status: 'cancelled' });
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
    const events = await waitFor(async () => {
      const mine = ledgerLines()
        .filter((l) => l.taskId === taskId)
        .map((l) => l.event);
      return mine.includes('release') ? mine : undefined;
    });
    expect(events).toEqual(['reserve', 'release']);
    const described = await waitFor(async () => {
      const d = await temporal.client.workflow.getHandle(taskId).describe();
      return d.status.name === 'CANCELLED' ? d : undefined;
    });
    expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
  } finally {
    await close();
  }
});

test('cancelling a Python deployment while it watches the rollout undoes the deploy, then releases the slot', async () => {
  const { session, close } = await taskSession(url, async () => ({ action: 'accept', content: { approved: true } }) as any);
  try {
    const execution = await session.callTool('approve_deployment', { service: 'ledger', version: '3.1', watchSeconds: 30 });
    const taskId = (execution as any).handle.taskId as string;
    const settled = execution.settle();
    // deployed: the deploy step is watching the rollout (it heartbeats, so the cancel reaches it)
    await waitFor(async () => (ledgerLines().some((l) => l.taskId === taskId && l.event === 'deploy') ? true : undefined));
    await execution.cancel();
    const { outcome } = await settled;
    expect(outcome).toMatchObject({ status: 'cancelled' });
    const described = await closed(taskId); // the session settles on its own cancel: the undos may still run
    expect(described.status.name).toBe('CANCELLED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
    // a step with its undo, newest first: the deploy is undone before the slot is released
    expect(
      ledgerLines()
        .filter((l) => l.taskId === taskId)
        .map((l) => l.event),
    ).toEqual(['reserve', 'deploy', 'undeploy', 'release']);
  } finally {
    await close();
  }
});

/** The task's ledger lines as [event, step, applied], in the order the activities ran. */
const stepsOf = (taskId: string) =>
  ledgerLines()
    .filter((l) => l.taskId === taskId)
    .map((l) => [l.event, l.step, l.applied]);

const closed = (taskId: string) =>
  waitFor(async () => {
    const d = await temporal.client.workflow.getHandle(taskId).describe();
    return d.status.name === 'RUNNING' ? undefined : d;
  });

test('cancelling a Python task while an activity runs undoes every step, newest first, and ends it cancelled', async () => {
  const { session, close } = await taskSession(url);
  try {
    const execution = await session.callTool('provision_python', { name: 'staging', steps: 2, stepSeconds: 3 });
    const taskId = (execution as any).handle.taskId as string;
    const settled = execution.settle();
    // step 1 took effect: step 2's activity is running (it heartbeats, so the cancel reaches it)
    await waitFor(async () => (stepsOf(taskId).length === 1 ? true : undefined));
    await execution.cancel();
    const { outcome } = await settled;
    expect(outcome).toMatchObject({ status: 'cancelled' });
    const described = await closed(taskId);
    // the cancel arrived as an ActivityError caused by CancelledError: still a cancellation
    expect(described.status.name).toBe('CANCELLED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['cancelled']);
    // the step in flight is undone too (a no-op: it never took effect), then step 1
    expect(stepsOf(taskId)).toEqual([
      ['provision', 1, undefined],
      ['deprovision', 2, false],
      ['deprovision', 1, true],
    ]);
  } finally {
    await close();
  }
});

test("a Python activity reports progress the contract's way: tasks/get reads it as the statusMessage while it runs", async () => {
  const { session, close } = await taskSession(url);
  try {
    const execution = await session.callTool('provision_python', { name: 'progress', steps: 1, stepSeconds: 4 });
    const taskId = (execution as any).handle.taskId as string;
    // report_progress heartbeats {mcpProgress: {message, done, total}}; the server renders "(done of total)"
    const seen = await waitFor(async () => {
      const task = await call(url, 'tasks/get', { taskId });
      return /^step 1: provisioning \(\d+ of 100\)$/.test(task.statusMessage ?? '') ? task : undefined;
    }, 10_000);
    expect(seen.status).toBe('working');
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'completed' });
  } finally {
    await close();
  }
});

test('a Python task whose undos partly fail: every undo is attempted, the task fails naming each step left in place', async () => {
  const { session, close } = await taskSession(url);
  try {
    // step 4 fails; the undos of steps 3 and 1 are refused, those of 4 and 2 work
    const execution = await session.callTool('provision_python', {
      name: 'prod',
      steps: 4,
      stepSeconds: 0,
      failStep: 4,
      refuseUndo: [1, 3],
    });
    const taskId = (execution as any).handle.taskId as string;
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'failed' });
    const task = await call(url, 'tasks/get', { taskId });
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(task.error.message).toBe(
      '2 step(s) could not be undone: step 3 of prod (Activity task failed: step 3 is locked and cannot be deprovisioned); ' +
        'step 1 of prod (Activity task failed: step 1 is locked and cannot be deprovisioned)',
    );
    expect(stepsOf(taskId)).toEqual([
      ['provision', 1, undefined],
      ['provision', 2, undefined],
      ['provision', 3, undefined],
      ['deprovision', 4, false],
      ['deprovision-refused', 3, undefined],
      ['deprovision', 2, true],
      ['deprovision-refused', 1, undefined],
    ]);
    const described = await closed(taskId);
    expect(described.status.name).toBe('FAILED');
    expect(described.searchAttributes.McpTaskStatus).toEqual(['failed']);
    expect(described.memo?.mcpProgress).toMatchObject({ statusMessage: 'could not undo: step 3 of prod, step 1 of prod' });
  } finally {
    await close();
  }
});

test("a Python elicitation that times out reads as the client's cancel: the request is withdrawn and the tool decides", async () => {
  let asked = 0;
  const { session, close } = await taskSession(url, async (_request: any, context: any) => {
    asked++;
    // never answered: the workflow's timeout decides
    return new Promise((_resolve, reject) =>
      context.signal?.addEventListener('abort', () => reject(context.signal.reason), { once: true }),
    );
  });
  try {
    const execution = await session.callTool('approve_deployment', { service: 'cache', version: '1.0', approvalTimeoutSeconds: 1 });
    const taskId = (execution as any).handle.taskId as string;
    void execution.settle().catch(() => undefined); // read with tasks/get below, whatever the session makes of the withdrawn request
    const task = await waitFor(async () => {
      const t = await call(url, 'tasks/get', { taskId });
      return t.status === 'working' || t.status === 'input_required' ? undefined : t;
    });
    expect(asked).toBe(1);
    expect(task.status).toBe('completed');
    expect(task.result).toMatchObject({ isError: true });
    expect(textOf(task.result)).toBe('Deployment of cache 1.0 was not approved (answered cancel)');
    expect(
      ledgerLines()
        .filter((l) => l.taskId === taskId)
        .map((l) => l.event),
    ).toEqual(['reserve', 'release']);
    const described = await closed(taskId);
    expect(described.searchAttributes.McpTaskStatus).toEqual(['completed']);
    expect(described.memo?.mcpProgress).toMatchObject({ status: 'working', inputRequests: {} });
  } finally {
    await close();
  }
});

test("a result that does not match the tool's outputSchema fails the task with -32603 saying so", async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-tools-')), 'tools.json');
  const greet = JSON.parse(fs.readFileSync(TOOLS_FILE, 'utf8')).tools[0];
  const checked = {
    ...greet,
    name: 'greet_checked',
    outputSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
  };
  fs.writeFileSync(file, JSON.stringify({ tools: [checked] }));
  const other = await stack.serve({ tools: toolsFromFile(file) }); // a tools file alone
  const { session, close } = await taskSession(other.url);
  try {
    const execution = await session.callTool('greet_checked', { name: 'Ada' });
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'failed' });
    const task = await call(other.url, 'tasks/get', { taskId: (execution as any).handle.taskId });
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(task.error.message).toMatch(/does not match its outputSchema: the result has no structuredContent/);
  } finally {
    await close();
    await other.close();
  }
});

test('a bad tools file stops the server (exit 2) with a message naming the tool and the field', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-tools-'));
  const bad = path.join(dir, 'tools.json');
  const tools = JSON.parse(fs.readFileSync(TOOLS_FILE, 'utf8'));
  tools.tools[1].taskMode = 'sometimes';
  delete tools.tools[0].workflowType;
  fs.writeFileSync(bad, JSON.stringify(tools));
  const proc = spawnCli(['serve', '--port', '0', '--tools', bad], { TEMPORAL_ADDRESS: temporal.address });
  expect(await proc.exited).toBe(2);
  expect(proc.output()).toContain(`tools file ${bad}: tool "greet_python" (tools[0]): workflowType: required`);
  expect(proc.output()).toMatch(/tool "approve_deployment" \(tools\[1\]\): taskMode: /);
});

test("the Python contract helper's own unit test passes", async () => {
  const python = ensureExamplesVenv();
  const unittest = spawnProcess(python, ['-m', 'unittest', '-v', 'test_mcp_tasks', 'test_mcp_tasks_end'], { cwd: PYTHON_DIR });
  const code = await unittest.exited;
  expect(unittest.output()).toMatch(/OK/);
  expect(code).toBe(0);
});
