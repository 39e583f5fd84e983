/** The MCP endpoint for the demo tools: a Temporal client and the same tool definitions. */
import { Client, Connection } from '@temporalio/client';
import { createMcpTasksServer } from 'mcp-temporal-tasks';
import { tools } from './tools';

async function run() {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const server = await createMcpTasksServer({ client: new Client({ connection }), tools, taskQueue: 'mcp-tasks' });
  const { url } = await server.listen({ port: 3000 });
  console.log(`MCP endpoint: ${url}`);
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
