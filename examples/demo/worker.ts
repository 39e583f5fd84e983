/** A worker for the demo tools: any existing worker becomes an MCP tasks worker with one plugin. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { McpTasksPlugin } from 'mcp-temporal-tasks/worker';
import * as activities from './activities';
import { tools } from './tools';

async function run() {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const worker = await Worker.create({
    connection,
    taskQueue: 'mcp-tasks',
    workflowsPath: require.resolve('./workflows'),
    activities,
    plugins: [new McpTasksPlugin({ tools })],
  });
  await worker.run();
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
