/** `serve --stdio` driven by the official MCP client over stdio, with a real Temporal behind it. */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import path from 'node:path';
import { startWorker } from '../support/mcp';
import { ROOT, stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { parseSamples, sampleSum, scrape } from '../support/prometheus';
import { waitFor } from '../support/wait';

let temporal: TestTemporal;

beforeAll(async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address);
});

stopAllAfter(() => temporal);

test.each(['2026-07-28', '2025-11-25'] as const)('tools/list and a durable tools/call over stdio (%s handshake)', async (revision) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'dist', 'cli', 'index.js'), 'serve', '--stdio'],
    env: { ...process.env, TEMPORAL_ADDRESS: temporal.address } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'stdio-test', version: '1.0.0' },
    { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['wait_and_echo', 'approve_expense']));
    const result = await client.callTool({ name: 'wait_and_echo', arguments: { text: `over stdio (${revision})`, seconds: 0 } });
    expect(result.content).toEqual([{ type: 'text', text: `over stdio (${revision})` }]);
  } finally {
    await client.close();
  }
});

test.each(['2026-07-28', '2025-11-25'] as const)(
  'a client without Tasks over stdio: handle, elicitation in its own UI, task_wait (%s handshake)',
  async (revision) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist', 'cli', 'index.js'), 'serve', '--stdio', '--handle-wait-ms', '1500'],
      env: { ...process.env, TEMPORAL_ADDRESS: temporal.address } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'stdio-plain', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: revision === '2026-07-28' ? { pin: '2026-07-28' } : 'legacy' },
      },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request: unknown) => {
      asked.push(request);
      return { action: 'accept', content: { approved: true } };
    });
    await client.connect(transport);
    try {
      const approved: any = await client.callTool({ name: 'approve_expense', arguments: { amount: 5, description: `stdio ${revision}` } });
      expect(approved.content[0].text).toBe(`Expense of 5 for "stdio ${revision}" was approved.`);
      expect(asked).toHaveLength(1);
      const handle: any = await client.callTool({
        name: 'provision_environment',
        arguments: { name: `stdio-${revision}`, steps: 3, stepMs: 1500 },
      });
      expect(handle.structuredContent).toMatchObject({ status: 'working' });
      // with a progressToken, one task_wait follows it to its end, past its own 2 s timeout
      const progress: Array<{ progress: number; message?: string }> = [];
      const result: any = await client.callTool(
        { name: 'task_wait', arguments: { taskId: handle.structuredContent.taskId } },
        { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 2000 },
      );
      expect(result.content[0].text).toBe(`Environment stdio-${revision} provisioned in 3 steps.`);
      expect(progress.map((p) => p.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^step 3\/3: provisioning/)]));
    } finally {
      await client.close();
    }
  },
);

test('serve --stdio --metrics-port: no HTTP port for MCP, metrics on their own port (tasks counted, stdio requests not)', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'dist', 'cli', 'index.js'), 'serve', '--stdio', '--metrics-port', '0'],
    env: { ...process.env, TEMPORAL_ADDRESS: temporal.address } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'stdio-metrics', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  try {
    await client.callTool({ name: 'wait_and_echo', arguments: { text: 'counted', seconds: 0 } });
    const metricsUrl = await waitFor(async () => /Metrics: (\S+)/.exec(stderr)?.[1], 10_000, 100, 'no "Metrics:" line on stderr');
    const samples = parseSamples(await scrape(metricsUrl));
    expect(sampleSum(samples, 'mcp_tasks_tasks_started_total', { tool: 'wait_and_echo' })).toBe(1);
    expect(sampleSum(samples, 'mcp_tasks_requests_total')).toBe(0);
  } finally {
    await client.close();
  }
});
