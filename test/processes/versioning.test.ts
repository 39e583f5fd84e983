/**
 * Worker Versioning (`worker --build-id`): task workflows are pinned to the Worker Deployment
 * version that started them, a new version takes new tasks only once it is current, and a task
 * in flight finishes on its own version after a deploy.
 */
import { call, pollTask, startServe, startWorker } from '../support/mcp';
import { spawnCli, stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { inputResponsesSignal } from '../../src/contract';

let temporal: TestTemporal;
let url: string;

beforeAll(async () => {
  temporal = await startTestTemporal();
  ({ url } = await startServe(temporal.address));
});

stopAllAfter(() => temporal);

/** Build ids are what a release names itself: dots allowed. */
const V1 = '2026.12.03-aaaa111';
const V2 = '2026.12.04-bbbb222';

const versionOf = async (taskId: string) => {
  const { raw } = await temporal.client.workflow.getHandle(taskId).describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, deploymentName: info?.deploymentVersion?.deploymentName, buildId: info?.deploymentVersion?.buildId };
};

async function startVersionedWorker(buildId: string) {
  const worker = await startWorker(temporal.address, {}, ['--build-id', buildId, '--set-current']);
  await worker.waitFor(new RegExp(`worker version mcp-temporal-tasks\\.${buildId.replace(/\./g, '\\.')}: (made|already) current`));
  return worker;
}

const echo = async (text: string, seconds: number) =>
  (await call(url, 'tools/call', { name: 'wait_and_echo', arguments: { text, seconds } })).taskId as string;

test('a worker started with --build-id runs a task to completion, pinned to its deployment version', async () => {
  const worker = await startVersionedWorker(V1);
  expect(worker.output()).toContain(`worker version mcp-temporal-tasks.${V1} (PINNED)`);
  const taskId = await echo('pinned', 0);
  const done = await pollTask(url, taskId);
  expect(done.status).toBe('completed');
  expect(done.result.content[0].text).toBe('pinned');
  // PINNED is the enum's number in the raw describe (VERSIONING_BEHAVIOR_PINNED = 1)
  expect(await versionOf(taskId)).toEqual({ behavior: 1, deploymentName: 'mcp-temporal-tasks', buildId: V1 });
});

test('after a deploy a running task finishes on its own version; new tasks go to the new current version', async () => {
  const running = await echo('started on v1', 4);
  await pollTask(url, running, (t) => t.statusMessage === 'waiting 4 s'); // its first workflow task ran on v1
  await startVersionedWorker(V2);
  const fresh = await echo('started on v2', 0);
  expect((await pollTask(url, fresh)).status).toBe('completed');
  expect((await versionOf(fresh)).buildId).toBe(V2);
  const done = await pollTask(url, running);
  expect(done.result.content[0].text).toBe('started on v1');
  expect((await versionOf(running)).buildId).toBe(V1);
  // an old build's worker restarting (say, to drain its pinned tasks) does not take new tasks back
  const old = await startWorker(temporal.address, {}, ['--build-id', V1, '--set-current']);
  await old.waitFor(/: left as is: it was current before/);
  const after = await echo('after the restart', 0);
  expect((await pollTask(url, after)).status).toBe('completed');
  expect((await versionOf(after)).buildId).toBe(V2);
});

test('versioning flags are checked before connecting', async () => {
  for (const [args, message] of [
    [['--set-current'], /--set-current needs --build-id/],
    [['--build-id', 'x', '--deployment-name', 'has.dot'], /--deployment-name .* without "\."/],
    [['--build-id', 'x', '--versioning-behavior', 'SOMETIMES'], /versioning-behavior.*SOMETIMES.*invalid/],
  ] as const) {
    const proc = spawnCli(['worker', ...args], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const code = await proc.exited;
    expect(code).not.toBe(0);
    expect(proc.output()).toMatch(message);
  }
  // what the variables alone do: test/unit/cli/worker-versioning.test.ts
});

/**
 * Upgrade on continue-as-new: a pinned chain moves to the deployment's current version at its
 * next continue-as-new once the server says its target changed (targetWorkerDeploymentVersionChanged),
 * without waiting for the history limit. Its own deployment and task queue, so the versions of
 * the tests above do not mix in.
 */
describe('a pinned continue-as-new chain after a deploy', () => {
  const DEPLOYMENT = 'mcp-upgrade-on-can';
  const QUEUE = 'mcp-tasks-upgrade';
  let upgradeUrl: string;

  beforeAll(async () => {
    ({ url: upgradeUrl } = await startServe(temporal.address, ['--task-queue', QUEUE]));
  });

  async function startBuild(buildId: string) {
    const worker = await startWorker(temporal.address, { MCP_TASK_QUEUE: QUEUE }, [
      '--build-id',
      buildId,
      '--deployment-name',
      DEPLOYMENT,
      '--set-current',
    ]);
    await worker.waitFor(new RegExp(`worker version ${DEPLOYMENT}\\.${buildId.replace(/\./g, '\\.')}: (made|already) current`));
    return worker;
  }

  const runsOf = async (taskId: string) => {
    const runs: { runId: string; buildId?: string; behavior?: unknown }[] = [];
    for await (const wf of temporal.client.workflow.list({ query: `WorkflowId = '${taskId}'` })) {
      const { raw } = await temporal.client.workflow.getHandle(taskId, wf.runId).describe();
      const info = raw.workflowExecutionInfo?.versioningInfo;
      runs.push({ runId: wf.runId, buildId: info?.deploymentVersion?.buildId ?? undefined, behavior: info?.behavior });
    }
    return runs;
  };

  const answer = (taskId: string, key: string, approved = true) =>
    call(upgradeUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { approved } } } });

  /** Every task queue partition routes by the new current version (ROUTING_CONFIG_UPDATE_STATE_COMPLETED = 2). */
  const routingPropagated = () =>
    waitUntil(async () => {
      const { workerDeploymentInfo } = await temporal.client.connection.workflowService.describeWorkerDeployment({
        namespace: 'default',
        deploymentName: DEPLOYMENT,
      });
      return workerDeploymentInfo?.routingConfigUpdateState === 2;
    });

  const onV2Pinned = (taskId: string) =>
    waitUntil(
      async () => JSON.stringify(await versionOf(taskId)) === JSON.stringify({ behavior: 1, deploymentName: DEPLOYMENT, buildId: V2 }),
    );

  /** What moved the run: a WorkflowTaskStarted event that said the target changed (not the history limit). */
  async function sawTargetChange(taskId: string, runId: string) {
    const { events } = await temporal.client.workflow.getHandle(taskId, runId).fetchHistory();
    return {
      changed: events!.some((e) => e.workflowTaskStartedEventAttributes?.targetWorkerDeploymentVersionChanged === true),
      events: events!.length,
    };
  }

  test('moves to the new build at its next continue-as-new, or at once when woken while waiting; a task that never continues as new stays', async () => {
    const started = Date.now();
    await startBuild(V1);
    const start = async (name: string, args: object) => (await call(upgradeUrl, 'tools/call', { name, arguments: args })).taskId as string;
    const chain = await start('collect_approvals', { approvers: ['ann', 'bob'] });
    const nudged = await start('collect_approvals', { approvers: ['cy', 'dee'] });
    const single = await start('approve_expense', { amount: 120, description: 'train' });
    for (const id of [chain, nudged, single]) await pollTask(upgradeUrl, id, (t) => t.status === 'input_required');
    const firstRun = async (id: string) => (await temporal.client.workflow.getHandle(id).describe()).runId;
    const [chainRun1, nudgedRun1] = [await firstRun(chain), await firstRun(nudged)];
    for (const id of [chain, nudged, single]) expect(await versionOf(id)).toEqual({ behavior: 1, deploymentName: DEPLOYMENT, buildId: V1 });

    await startBuild(V2);
    await routingPropagated();
    // the answer wakes the run on V1; it sees the new target and continues as new onto V2 with bob's question
    await answer(chain, 'approval-0');
    const asked = await pollTask(upgradeUrl, chain, (t) => t.status === 'input_required' && t.statusMessage?.includes('bob'));
    expect(asked.statusMessage).toBe('waiting for bob (2/2)');
    expect(await firstRun(chain)).not.toBe(chainRun1);
    // the new run starts AUTO_UPGRADE; its first workflow task, on V2, pins it there again
    await onV2Pinned(chain);
    expect(await sawTargetChange(chain, chainRun1)).toEqual({ changed: true, events: expect.any(Number) });
    expect((await sawTargetChange(chain, chainRun1)).events).toBeLessThan(100); // far below the history limit
    await answer(chain, 'approval-1');
    const done = await pollTask(upgradeUrl, chain);
    expect(done.result.content[0].text).toBe('Approved by all 2: ann, bob.');
    expect((await versionOf(chain)).buildId).toBe(V2);

    // still waiting for cy: anything that wakes it moves it to V2 at once, the question carried;
    // here an operator's nudge, an empty answer signal (what `temporal workflow signal` sends)
    await temporal.client.workflow.getHandle(nudged).signal(inputResponsesSignal, {});
    await waitUntil(async () => (await firstRun(nudged)) !== nudgedRun1);
    await onV2Pinned(nudged);
    expect((await sawTargetChange(nudged, nudgedRun1)).changed).toBe(true);
    const waiting = await pollTask(upgradeUrl, nudged, (t) => t.status === 'input_required');
    expect(waiting.statusMessage).toBe('waiting for cy (1/2)');
    expect(Object.keys(waiting.inputRequests ?? {})).toEqual(['approval-0']);
    await answer(nudged, 'approval-0');
    await pollTask(upgradeUrl, nudged, (t) => t.statusMessage === 'waiting for dee (2/2)' && t.status === 'input_required');
    await answer(nudged, 'approval-1', false);
    expect((await pollTask(upgradeUrl, nudged)).result.content[0].text).toBe('Not approved: dee declined after 1 approval(s).');
    expect(new Set((await runsOf(nudged)).map((r) => r.buildId))).toEqual(new Set([V1, V2]));

    // a pinned task that does not continue as new finishes where it started; the query that
    // docs/production.md gives to nudge an old version's running tasks finds it
    const query = `TemporalWorkerDeploymentVersion = "${DEPLOYMENT}:${V1}" AND ExecutionStatus = "Running"`;
    await waitUntil(async () => {
      const ids: string[] = [];
      for await (const wf of temporal.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.includes(single) && !ids.includes(chain);
    });
    await answer(single, 'approval');
    expect((await pollTask(upgradeUrl, single)).status).toBe('completed');
    expect(await versionOf(single)).toEqual({ behavior: 1, deploymentName: DEPLOYMENT, buildId: V1 });
    console.log(`upgrade on continue-as-new: ${Date.now() - started} ms`);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
