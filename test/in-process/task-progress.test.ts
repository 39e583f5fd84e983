/**
 * Progress notifications on calls that wait on a task, for clients without Tasks that sent a
 * progressToken: the v2 SDK's plain Client (2026-07-28) and the 1.x SDK (2025-11-25), each
 * following a task longer than its own request timeout in one call (resetTimeoutOnProgress).
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, inRealmFetch, PROTOCOL } from '../support/mcp';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/** Short handles for calls without progress; a call with progress may be held a minute. */
const stack = useStack({ config: { handleWaitMs: 1000, progressWaitMs: 60_000 } });
const RELATED = 'io.modelcontextprotocol/related-task';

interface Progress {
  progress: number;
  total?: number;
  message?: string;
  _meta?: Record<string, { taskId?: string }>;
}
type Options = { onprogress: (p: Progress) => void; resetTimeoutOnProgress: boolean; timeout: number; signal?: AbortSignal };
type AnyClient = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }, schema?: undefined, options?: Options): Promise<any>;
  close(): Promise<void>;
};

/** --no-task-handles: a call without Tasks is held until its run ends (a held synchronous call). */
let heldUrl: string;
beforeAll(async () => {
  ({ url: heldUrl } = await stack.serve({ config: { taskHandles: false } }));
});

async function v2Client(target = stack.url): Promise<AnyClient> {
  const client = new V2Client({ name: 'plain-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PROTOCOL } } });
  await client.connect(new V2Transport(new URL(target), { fetch: inRealmFetch }));
  return { callTool: (p, _s, o) => client.callTool(p, o as never), close: () => client.close() };
}

async function v1Client(): Promise<AnyClient> {
  const client = new V1Client({ name: 'plain-v1', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(stack.url)));
  return { callTool: (p, _s, o) => client.callTool(p, undefined, o), close: () => client.close() };
}

/** Call options that collect the call's progress into `seen` and keep it alive while progress comes. */
const collecting = (seen: Progress[], timeout = 30_000): Options => ({
  onprogress: (p) => seen.push(p),
  resetTimeoutOnProgress: true,
  timeout,
});

/** A 3-step provision started through `starter`, followed by `follower`'s task_wait with a progressToken. */
async function provisionFollowed(starter: AnyClient, follower: AnyClient, name: string) {
  const handle = await starter.callTool({ name: 'provision_environment', arguments: { name, steps: 3, stepMs: 1500 } });
  expect(handle.structuredContent).toMatchObject({ status: 'working' });
  const seen: Progress[] = [];
  const result = await follower.callTool(
    { name: 'task_wait', arguments: { taskId: handle.structuredContent.taskId } },
    undefined,
    collecting(seen),
  );
  return { result, messages: seen.map((p) => p.message) };
}

const text = (result: any): string => result.content.map((c: any) => c.text).join('\n');

describe.each([
  ['v2 plain Client (2026-07-28)', v2Client],
  ['1.x SDK callTool (2025-11-25)', v1Client],
])('%s with a progressToken', (_name, connect) => {
  test('one call follows a task longer than its own timeout: progress grows, with the statusMessage and done/total', async () => {
    const client = await connect();
    const seen: Progress[] = [];
    // the task takes about 6 s: only progress keeps this 3 s call alive
    const result = await client.callTool(
      { name: 'export_report', arguments: { rows: 6000, msPerChunk: 1000 } },
      undefined,
      collecting(seen, 3000),
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.taskId).toBeUndefined(); // the tool's own result, not a handle
    expect(seen.length).toBeGreaterThan(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
    const counted = seen.filter((p) => p.total !== undefined);
    expect(counted.length).toBeGreaterThan(0);
    expect(counted[counted.length - 1]).toMatchObject({ total: 6000, message: expect.stringMatching(/^exporting rows \(\d/) });
    expect(seen[0]._meta?.[RELATED]?.taskId).toMatch(/^task_/);
    await client.close();
  });

  test('a call dropped mid-wait keeps its task: the taskId its progress named follows it to its result', async () => {
    const client = await connect();
    const abort = new AbortController();
    let taskId: string | undefined;
    const call = client.callTool({ name: 'wait_and_echo', arguments: { text: 'kept', seconds: 4 } }, undefined, {
      onprogress: (p) => {
        taskId = p._meta?.[RELATED]?.taskId;
        abort.abort(); // the client gives up as soon as it heard of the task
      },
      resetTimeoutOnProgress: true,
      timeout: 60_000,
      signal: abort.signal,
    });
    await expect(call).rejects.toThrow();
    expect(taskId).toMatch(/^task_/);
    let result: any;
    do result = await client.callTool({ name: 'task_wait', arguments: { taskId } });
    while (result.structuredContent?.status === 'working');
    expect(text(result)).toBe('kept');
    await client.close();
  });

  test('task_wait with a progressToken is held past --handle-wait-ms, up to the task', async () => {
    const client = await connect();
    const { result, messages } = await provisionFollowed(client, client, 'p');
    expect(text(result)).toBe('Environment p provisioned in 3 steps.');
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/^step 2\/3: provisioning database/)]));
    await client.close();
  });
});

describe('edges of a task_wait held with a progressToken (v2 plain Client)', () => {
  test('a cancel from another call while it is held: the held call ends with the cancelled task at once', async () => {
    const client = await v2Client();
    const handle = await client.callTool({ name: 'provision_environment', arguments: { name: 'race', steps: 8, stepMs: 1500 } });
    const { taskId } = handle.structuredContent;
    const seen: Progress[] = [];
    const held = client.callTool({ name: 'task_wait', arguments: { taskId } }, undefined, collecting(seen));
    await waitFor(async () => (seen.length > 0 ? true : undefined), 10_000);
    const canceller = await v2Client();
    const asked = Date.now();
    await canceller.callTool({ name: 'task_cancel', arguments: { taskId } });
    const result = await held;
    // well before the 8 × 1.5 s run would have ended, and long before --progress-wait-ms (60 s)
    expect(Date.now() - asked).toBeLessThan(8_000);
    expect(result.structuredContent).toMatchObject({ taskId, status: 'cancelled' });
    await Promise.all([client.close(), canceller.close()]);
  });

  test('task_wait held with a progressToken on another replica than the one that started the task: its progress and result there', async () => {
    const other = await stack.serve({ config: { handleWaitMs: 1000, progressWaitMs: 60_000 } });
    const starter = await v2Client();
    const follower = await v2Client(other.url);
    const { result, messages } = await provisionFollowed(starter, follower, 'b');
    expect(text(result)).toBe('Environment b provisioned in 3 steps.');
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/^step 3\/3/)]));
    await Promise.all([starter.close(), follower.close()]);
  });

  test("waitMs bounds a call held with a progressToken: the caller's shorter bound wins, with progress until then", async () => {
    const client = await v2Client();
    const handle = await client.callTool({ name: 'export_report', arguments: { rows: 6000, msPerChunk: 1000 } });
    const { taskId } = handle.structuredContent;
    const seen: Progress[] = [];
    const started = Date.now();
    const result = await client.callTool({ name: 'task_wait', arguments: { taskId, waitMs: 2_000 } }, undefined, collecting(seen));
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(5_000); // not the 60 s the progress token alone would allow
    expect(result.structuredContent).toMatchObject({ taskId, status: 'working' });
    expect(seen.length).toBeGreaterThan(0);
    await client.callTool({ name: 'task_cancel', arguments: { taskId } });
    await client.close();
  });
});

describe('a held synchronous call (--no-task-handles) with a progressToken', () => {
  test('gets progress while its run goes on, past its own timeout, and then its result', async () => {
    const client = await v2Client(heldUrl);
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: 'export_report', arguments: { rows: 5000, msPerChunk: 1000 } },
      undefined,
      collecting(seen, 3000),
    );
    expect(result.isError).toBeFalsy();
    expect(seen.some((p) => p.total === 5000)).toBe(true);
    await client.close();
  });

  test('dropped, its run goes on (not cancelled) and tasks/get reads it by the taskId its progress named', async () => {
    const client = await v2Client(heldUrl);
    const abort = new AbortController();
    let taskId: string | undefined;
    const dropped = client.callTool({ name: 'wait_and_echo', arguments: { text: 'held', seconds: 3 } }, undefined, {
      onprogress: (p) => {
        taskId = p._meta?.[RELATED]?.taskId;
        abort.abort();
      },
      resetTimeoutOnProgress: true,
      timeout: 60_000,
      signal: abort.signal,
    });
    await expect(dropped).rejects.toThrow();
    expect(taskId).toMatch(/^task_/);
    const result = await stack.temporal.client.workflow.getHandle(taskId!).result();
    expect(result.content).toEqual([{ type: 'text', text: 'held' }]);
    const read = await call(heldUrl, 'tasks/get', { taskId });
    expect(read).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'held' }] } });
    await client.close();
  });
});
