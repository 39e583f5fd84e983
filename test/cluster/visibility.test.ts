/**
 * What rests on visibility queries, on SQL visibility (PostgreSQL, custom Keyword search
 * attributes) instead of the dev server's SQLite: task_list by owner (McpOwner) and the running-
 * task quotas across two replicas. The lag between a start and its visibility is measured and
 * printed: the quotas cover it with each replica's own recent starts (--quota-lag-ms), task_list
 * does not (a task shows up once visible). Across replicas a quota holds once the replicas'
 * cached counts are fresh (older than 10 s, a start waits for a new count).
 */
import { call, rpc } from '../support/mcp';
import { sleep, waitFor } from '../support/wait';
import { report, useClusterStack } from './support';

const TOKENS = {
  MCP_AUTH_TOKENS: 'alice:tok-alice-0123456789,bob:tok-bob-0123456789',
  MCP_OWNER_KEY: 'a-test-owner-key-0123456789',
};
const alice = { headers: { authorization: 'Bearer tok-alice-0123456789' } };
const bob = { headers: { authorization: 'Bearer tok-bob-0123456789' } };
const plain = (who: typeof alice) => ({ ...who, capabilities: {} });

const stack = useClusterStack({ serveArgs: ['--max-running-tasks-per-caller', '3', '--quota-lag-ms', '1000'], serveEnv: TOKENS });

const start = async (url: string, who: typeof alice) =>
  (await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'held', seconds: 600 } }, who)).taskId as string;

// a failed test must not leave running tasks behind: the quotas count them
afterEach(async () => {
  const { executions } = await stack.tc.client.workflowService.listWorkflowExecutions({
    namespace: 'default',
    query: 'ExecutionStatus = "Running"',
  });
  await Promise.all(
    (executions ?? []).map((e) =>
      stack.tc.client.workflow
        .getHandle(e.execution!.workflowId!)
        .terminate('test cleanup')
        .catch(() => undefined),
    ),
  );
});

async function cancelAll(url: string, who: typeof alice, ids: string[]): Promise<void> {
  await Promise.all(ids.map((taskId) => call(url, 'tasks/cancel', { taskId }, who)));
  await Promise.all(
    ids.map((id) =>
      stack.tc.client.workflow
        .getHandle(id)
        .result()
        .catch(() => undefined),
    ),
  );
}

test('visibility lag on PostgreSQL: from a start to its workflow in a search-attribute query (printed)', async () => {
  const lags: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const started = Date.now();
    const id = await start(stack.urls[i % 2], alice);
    ids.push(id);
    await waitFor(
      async () => {
        const { count } = await stack.tc.client.workflowService.countWorkflowExecutions({
          namespace: 'default',
          query: `WorkflowId = "${id}" AND McpOwner IS NOT NULL AND ExecutionStatus = "Running"`,
        });
        return Number(count) === 1 ? true : undefined;
      },
      30_000,
      5,
      `${id} not visible`,
    );
    lags.push(Date.now() - started);
    await cancelAll(stack.urls[0], alice, [id]);
    // a replica counts its own starts of the last --quota-lag-ms as running, ended or not (it refuses early, never late)
    await sleep(1100);
  }
  lags.sort((x, y) => x - y);
  report('cluster visibility lag ms (tools/call start to visible, incl. the call)', {
    min: lags[0],
    median: lags[5],
    max: lags[9],
  });
});

test("task_list on either replica lists the caller's own tasks from SQL visibility, and no one else's", async () => {
  const [a, b] = stack.urls;
  const mine = [await start(a, alice), await start(b, alice)];
  const theirs = await start(a, bob);
  const listed = async (url: string, who: typeof alice) =>
    (await call(url, 'tools/call', { name: 'task_list', arguments: {} }, plain(who))).structuredContent.tasks.map((t: any) => t.taskId);
  for (const url of [a, b]) {
    const seen = await waitFor(async () => {
      const ids: string[] = await listed(url, alice);
      return mine.every((id) => ids.includes(id)) ? ids : undefined;
    });
    expect(seen).not.toContain(theirs);
  }
  expect(await listed(b, bob)).toEqual([theirs]);
  await cancelAll(a, alice, mine);
  await cancelAll(a, bob, [theirs]);
});

test('the per-caller quota holds across both replicas once their counts are fresh; a cancelled task frees its place', async () => {
  const [a, b] = stack.urls;
  const mine = [await start(a, alice), await start(b, alice), await start(a, alice)];
  // A replica admits on a cached count up to 10 s old (maxStaleMs; refreshed behind it), and such a
  // count misses the other replica's starts since: for those 10 s both may admit. Past them, a
  // start waits for a fresh count, which has every start visible (--quota-lag-ms 1 s).
  await sleep(11_000);
  for (const url of [a, b]) {
    const refused = await rpc(url, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } }, alice);
    expect(refused.body.error).toMatchObject({ code: -32603, data: { scope: 'caller', limit: 3, running: 3 } });
  }
  await cancelAll(a, alice, [mine[0]]);
  const again = await waitFor(
    async () => (await rpc(b, 'tools/call', { name: 'wait_and_echo', arguments: { text: 'q', seconds: 600 } }, alice)).body.result?.taskId,
    15_000,
  );
  await cancelAll(a, alice, [mine[1], mine[2], again]);
});
