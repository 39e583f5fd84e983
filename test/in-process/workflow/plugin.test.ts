/**
 * McpTasksPlugin refuses a worker that lacks a tool's workflow (checked in Worker.create before
 * any connection or bundling), and a worker whose prebuilt workflow bundle (bundled ahead, e.g.
 * in CI: bundleWorkflowCode then Worker.create({ workflowBundle })) lacks the task runtime
 * (issue 31, item 7). A bundle made with the plugin runs tasks with the runtime: a cancel undoes
 * every step.
 */
import { bundleWorkflowCode, type BundleOptions, Worker, type WorkflowBundle } from '@temporalio/worker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MCP_TASK_STATUS } from '../../../src/contract';
import {
  DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS,
  McpTasksPlugin,
  type McpTasksPluginOptions,
  TASK_RUNTIME_INTERCEPTOR_MODULE,
} from '../../../src/worker';
import { demo, type Harness, startHarness, testTool, WORKFLOWS_PATH, workflows } from '../../support/workflow-harness';

/** A workflow function that the test workflows module does not export. */
async function notExported(): Promise<never> {
  throw new Error('never runs');
}

const applied = new Set<string>();
const undone: string[] = [];
const activities: workflows.SagaActivities = {
  async applyStep({ key }) {
    applied.add(key);
  },
  async undoStep({ key }) {
    undone.push(key);
    applied.delete(key);
  },
};
const sagaTool = testTool('saga_then_wait', workflows.sagaThenWait);
const tools = [...demo.tools, sagaTool];

// the harness (its Runtime) starts before the tests below create workers
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools, activities });
});
afterAll(async () => {
  await h?.teardown();
});

const create = (options: McpTasksPluginOptions) =>
  Worker.create({ taskQueue: 'plugin-check', workflowsPath: WORKFLOWS_PATH, plugins: [new McpTasksPlugin(options)] });

test('a tool whose workflow the worker does not export stops Worker.create, naming the tool', async () => {
  const typo = testTool('typo_tool', notExported);
  await expect(create({ tools: [...demo.tools, typo] })).rejects.toThrow(
    `McpTasksPlugin: the worker's workflows (${WORKFLOWS_PATH}) do not export the workflow of typo_tool (workflow notExported)`,
  );
});

test('every missing tool is named, the present ones are not', async () => {
  const missing = [
    testTool('first_missing', notExported),
    testTool('second_missing', async function renamed() {
      return notExported();
    }),
  ];
  const err = await create({ tools: [demo.waitAndEchoTool, ...missing] }).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err?.message).toContain('first_missing (workflow notExported), second_missing (workflow renamed)');
  expect(err?.message).not.toContain('wait_and_echo');
});

test('a worker with every tool workflow passes the check (and only then needs a connection)', async () => {
  // No typo: the plugin lets Worker.create go on to bundling; stop it there by a failing hook.
  const reachedBundler = new Error('reached the bundler');
  const result = Worker.create({
    taskQueue: 'plugin-check',
    workflowsPath: WORKFLOWS_PATH,
    plugins: [new McpTasksPlugin({ tools: [...demo.tools, testTool('multi_input', workflows.multi_input)] })],
    bundlerOptions: {
      webpackConfigHook: () => {
        throw reachedBundler;
      },
    },
  });
  await expect(result).rejects.toBe(reachedBundler);
});

describe('a prebuilt workflow bundle (item 7)', () => {
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };
  // the tests' workflows import the package by name: here that is the source tree
  const bundle = (options: Partial<BundleOptions>): Promise<WorkflowBundle> =>
    bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: quiet,
      webpackConfigHook: (config) => ({
        ...config,
        resolve: {
          ...config.resolve,
          alias: {
            ...(config.resolve?.alias as object),
            'mcp-temporal-tasks/workflow$': path.join(__dirname, '..', '..', '..', 'src', 'workflows', 'index.ts'),
          },
        },
      }),
      ...options,
    });
  const HOW_TO = `Bundle it with the plugin: bundleWorkflowCode({ workflowsPath, plugins: [new McpTasksPlugin({ tools })] }), or add TASK_RUNTIME_INTERCEPTOR_MODULE from 'mcp-temporal-tasks/worker' (${TASK_RUNTIME_INTERCEPTOR_MODULE}) to its workflowInterceptorModules.`;

  let without: WorkflowBundle;
  let withPlugin: WorkflowBundle;
  beforeAll(async () => {
    without = await bundle({});
    withPlugin = await bundle({ plugins: [new McpTasksPlugin({ tools })] });
  });

  const createWith = (workflowBundle: { code: string } | { codePath: string }, taskQueue = `${h.taskQueue}-bundled`) =>
    Worker.create({
      connection: h.nativeConnection,
      taskQueue,
      workflowBundle,
      activities,
      plugins: [new McpTasksPlugin({ tools })],
      shutdownGraceTime: '1 s',
    });

  test('the sticky schedule-to-start timeout reaches the worker: our default, the plugin option, the worker option over it', async () => {
    const stickyMs = async (plugin: McpTasksPluginOptions, own: { stickyQueueScheduleToStartTimeout?: string } = {}) => {
      const worker = await Worker.create({
        connection: h.nativeConnection,
        taskQueue: `${h.taskQueue}-sticky`,
        workflowBundle: { code: withPlugin.code },
        activities,
        plugins: [new McpTasksPlugin({ tools, ...plugin })],
        shutdownGraceTime: '1 s',
        ...own,
      });
      await worker.runUntil(Promise.resolve());
      return worker.options.stickyQueueScheduleToStartTimeoutMs;
    };
    expect(await stickyMs({})).toBe(DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS);
    expect(await stickyMs({ stickyQueueScheduleToStartTimeout: '3s' })).toBe(3000);
    expect(await stickyMs({ stickyQueueScheduleToStartTimeout: '3s' }, { stickyQueueScheduleToStartTimeout: '1500ms' })).toBe(1500);
  });

  test('bundled without the plugin: Worker.create refuses it, saying how to bundle the runtime in', async () => {
    await expect(createWith({ code: without.code })).rejects.toThrow(
      `McpTasksPlugin: the workflowBundle was bundled without the task runtime's interceptor, so tool workflows would run without it (a cancel would not undo their steps). ${HOW_TO}`,
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-bundle-')), 'workflows.bundle.js');
    fs.writeFileSync(file, without.code);
    await expect(createWith({ codePath: file })).rejects.toThrow(
      `McpTasksPlugin: the workflowBundle (${file}) was bundled without the task runtime's interceptor`,
    );
  });

  test('a replay worker with the plugin refuses it too; the bundle made with the plugin replays', async () => {
    const taskId = await h.startTask(sagaTool, { steps: 1 });
    await h.handle(taskId).result();
    const history = await h.handle(taskId).fetchHistory();
    const replay = (workflowBundle: WorkflowBundle) =>
      Worker.runReplayHistory({ workflowBundle, plugins: [new McpTasksPlugin({ tools })] }, history, taskId);
    await expect(replay(without)).rejects.toThrow(HOW_TO);
    await replay(withPlugin);
  });

  test('a bundle path that cannot be read stops Worker.create with the path and the reason', async () => {
    const missing = path.join(os.tmpdir(), 'mtt-no-such-dir', 'workflows.bundle.js');
    await expect(createWith({ codePath: missing })).rejects.toThrow(`McpTasksPlugin: cannot read the workflowBundle at ${missing} (ENOENT`);
  });

  test('bundled with the interceptor module named in workflowInterceptorModules: accepted', async () => {
    const named = await bundle({ workflowInterceptorModules: [TASK_RUNTIME_INTERCEPTOR_MODULE] });
    expect(() => new McpTasksPlugin({ tools }).configureWorker({ taskQueue: 'plugin-check', workflowBundle: named })).not.toThrow();
  });

  test('tracing on: a bundle without Temporal’s OpenTelemetry interceptors is refused, one bundled by the traced plugin accepted', async () => {
    const tracing = { spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()), resource: Resource.default() };
    const traced = new McpTasksPlugin({ tools, tracing });
    expect(() => traced.configureWorker({ taskQueue: 'plugin-check', workflowBundle: withPlugin })).toThrow(
      "McpTasksPlugin: tracing is on, but the workflowBundle was bundled without Temporal's OpenTelemetry workflow interceptors",
    );
    const tracedBundle = await bundle({ plugins: [traced] });
    const options = traced.configureWorker({ taskQueue: 'plugin-check', workflowBundle: tracedBundle });
    expect(Object.keys(options.sinks ?? {})).toContain('exporter'); // where the workflow's spans leave the sandbox
  });

  test('bundled with the plugin: the worker runs tasks with the runtime, a cancel undoes all four steps', async () => {
    const taskQueue = `${h.taskQueue}-with-plugin`;
    const worker = await createWith(withPlugin, taskQueue);
    const store = h.storeWith({ taskQueue });
    await worker.runUntil(async () => {
      const { taskId } = await store.start({
        tool: sagaTool.name,
        workflowType: 'sagaThenWait',
        arguments: { steps: 4, waitMs: 600_000 },
        summary: 'bundled',
      });
      await h.waitFor(taskId, (t) => t.statusMessage === 'steps done', { store });
      await store.cancel(taskId);
      await h
        .handle(taskId)
        .result()
        .catch(() => undefined);
      const d = await h.handle(taskId).describe();
      expect({ status: d.status.name, mcpStatus: d.typedSearchAttributes.get(MCP_TASK_STATUS) }).toEqual({
        status: 'CANCELLED',
        mcpStatus: 'cancelled',
      });
      expect((await store.read(taskId))?.state).toEqual({ status: 'cancelled' });
      expect(undone.filter((k) => k.startsWith(`${taskId}:`))).toEqual([4, 3, 2, 1].map((i) => `${taskId}:${i}`));
      expect([...applied].filter((k) => k.startsWith(`${taskId}:`))).toEqual([]);
    });
  });
});
