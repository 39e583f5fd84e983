/**
 * McpTasksPlugin refuses a worker that lacks a tool's workflow. The check runs in
 * Worker.create before any connection or bundling, so no server is needed here.
 */
import { Worker } from '@temporalio/worker';
import { McpTasksPlugin, type McpTasksPluginOptions } from '../../src/worker';
import { demo, testTool, WORKFLOWS_PATH, workflows } from './env';

/** A workflow function that the test workflows module does not export. */
async function notExported(): Promise<never> {
  throw new Error('never runs');
}

const create = (options: McpTasksPluginOptions) =>
  Worker.create({ taskQueue: 'plugin-check', workflowsPath: WORKFLOWS_PATH, plugins: [new McpTasksPlugin(options)] });

test('a tool whose workflow the worker does not export stops Worker.create, naming the tool', async () => {
  const typo = testTool('typo_tool', notExported);
  await expect(create({ tools: [...demo.tools, typo] })).rejects.toThrow(
    `McpTasksPlugin: the worker's workflows (${WORKFLOWS_PATH}) do not export the workflow of typo_tool (workflow notExported)`,
  );
});

test('every missing tool is named, the present ones are not', async () => {
  const missing = [testTool('first_missing', notExported), testTool('second_missing', async function renamed() { return notExported(); })];
  const err = await create({ tools: [demo.waitAndEchoTool, ...missing] }).then(() => undefined, (e: Error) => e);
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
