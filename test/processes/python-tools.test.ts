/**
 * Workflows of another SDK as MCP task tools (issue 12): a Temporal PYTHON worker
 * (examples/python/, temporalio pinned, installed into the git-ignored .venv-examples/) runs a
 * plain workflow and two that follow docs/contract.md; `serve` exposes them through
 * examples/python/tools.json. The two pass the suite the Go and Java examples pass
 * (test/support/contract-tools.ts); the tests before it are about what only this example has.
 */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureExamplesVenv } from '../../scripts/python-examples-venv';
import { toolsFromFile } from '../../src/mcp/workflow-tools';
import { contractToolSuite } from '../support/contract-tools';
import { fixturesModule } from '../support/in-process';
import { call, rpc, taskSession } from '../support/mcp';
import { type ChildHandle, ROOT, spawnCli, spawnProcess } from '../support/processes';
import { useStack } from '../support/stack';
import type { TestTemporal } from '../support/temporal';
import { waitFor } from '../support/wait';

const PYTHON_DIR = path.join(ROOT, 'examples', 'python');
const TOOLS_FILE = path.join(PYTHON_DIR, 'tools.json');

let python = '';

// the venv first (a few seconds when new with a warm pip cache, instant after): a missing PyPI fails here, loudly
function prepareVenv(): void {
  const started = Date.now();
  python = ensureExamplesVenv({ log: (m) => console.log(m) });
  console.log(`python examples venv ready in ${Date.now() - started} ms`);
}

/** The example worker, on its task queue python-tools, its activities' effects in `ledger`. */
async function startPythonWorker(address: string, ledger: string): Promise<ChildHandle> {
  const worker = spawnProcess(python, [path.join(PYTHON_DIR, 'worker.py')], {
    cwd: PYTHON_DIR,
    env: { TEMPORAL_ADDRESS: address, LEDGER_FILE: ledger, PYTHONUNBUFFERED: '1' },
    name: 'the Python worker',
  });
  await worker.waitFor(/python worker polling task queue python-tools/);
  return worker;
}

// Before the suite: the first test finds no approval on Python's task queue, where the suite starts some.
describe('what only the Python example has', () => {
  // the server serves the TypeScript fixtures' tools next to the tools file's (as --tools does); no test runs them
  const stack = useStack({ noWorker: true, noServer: true });
  let temporal: TestTemporal;
  let url: string;
  let worker: ChildHandle | undefined;

  beforeAll(async () => {
    prepareVenv();
    temporal = stack.temporal;
    // the tools run here record nothing; a ledger all the same, so nothing is ever written into PYTHON_DIR
    const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-ledger-python-')), 'ledger.jsonl');
    worker = await startPythonWorker(temporal.address, ledger);
    ({ url } = await stack.serve({ tools: [...fixturesModule().tools, ...toolsFromFile(TOOLS_FILE)] }));
  }, 600_000);
  // the worker is ours, stopped by its pid: the suite's worker (on the same task queue) comes after it
  afterAll(() => worker?.stop('SIGTERM', 10_000));

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
});

describe('the contract suite', () => {
  contractToolSuite({
    lang: 'python',
    toolsFile: TOOLS_FILE,
    prepare: prepareVenv,
    startWorker: startPythonWorker,
    approveTool: 'approve_deployment',
    undoReasonPrefix: 'Activity task failed: ',
  });
});

test("the Python contract helper's own unit test passes", async () => {
  prepareVenv();
  const unittest = spawnProcess(python, ['-m', 'unittest', '-v', 'test_mcp_tasks', 'test_mcp_tasks_end', 'test_mcp_tasks_claim'], {
    cwd: PYTHON_DIR,
  });
  const code = await unittest.exited;
  expect(unittest.output()).toMatch(/OK/);
  expect(code).toBe(0);
});
