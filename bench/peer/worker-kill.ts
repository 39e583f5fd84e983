/** bench:peer's worker kill: tasks of a few seconds, their worker SIGKILLed mid-way, a new one started. */
import { sleep } from '../../test/support/wait';
import { forEachBounded } from '../measure';
import { log, now } from '../script';
import type { PeerConfig } from './config';
import { killPhases } from './kill-phases';
import { type Created, onTemporal, type Stack } from './stacks';

const ids = (created: Created[]) => created.map((c) => c.taskId);

/** How many of these tasks ended completed (the busy worker's companions, read once it is all over). */
async function completedCount(s: Stack, taskIds: string[]): Promise<number> {
  const statuses = await Promise.all(taskIds.map(async (id) => (await s.ctx.mcp.getTask(id)).status));
  return statuses.filter((x) => x === 'completed').length;
}

/**
 * How the killed worker spent the seconds before its death. It decides where Temporal sends the
 * worker's tasks once their timers fire: matching counts a sticky queue alive while its worker
 * polled it within the last 10 s (`stickyPollerUnavailableWindow`, the server's
 * service/matching/matching_engine.go), and sends the workflow task there to wait out the sticky
 * schedule-to-start timeout; otherwise to the shared queue at once. A poll starts again each time
 * one returns a task. `busy`: companion tasks of 1 s end through the worker's sticky queue 1 s
 * before its death, as on a worker with other work in flight; `idle`: nothing ran on the worker for
 * `idleMs` before the batch (its idle long polls still renew about once a minute, so a renewal
 * can fall in the window).
 */
export type BeforeKill = 'busy' | 'idle';

/** Tasks of a few seconds; SIGKILL the worker mid-way, start a new one, count what completes. */
export async function workerKill(s: Stack, cfg: PeerConfig, before: BeforeKill, tuned = false) {
  const { tasks, seconds, killAfterMs, restartAfterMs, waitMs, pollMs, companions, idleMs } = cfg.kill;
  log(`kill: ${s.key}: ${tasks} tasks of ${seconds} s, worker SIGKILL after ${killAfterMs} ms, the worker ${before} before`);
  const stamp = Date.now().toString(36);
  if (before === 'idle') await sleep(idleMs);
  const companionIds: string[] = [];
  if (before === 'busy') {
    await forEachBounded([...Array(companions).keys()], companions, async (i) => {
      const { taskId } = await s.ctx.mcp.createWaitAndEcho(1, `companion-${s.key}-${stamp}-${i}`);
      companionIds.push(taskId);
    });
  }
  const created: Created[] = [];
  await forEachBounded([...Array(tasks).keys()], tasks, async (i) => {
    const text = `kill-${s.key}-${before}-${stamp}-${i}`;
    const { taskId } = await s.ctx.mcp.createWaitAndEcho(seconds, text);
    s.ctx.live.add(taskId);
    created.push({ taskId, text });
  });
  const t0 = now();
  await sleep(killAfterMs);
  s.killWorker();
  const killedAt = now();
  await sleep(restartAfterMs);
  const restartAt = now();
  await s.restartWorker(tuned);
  const workerStartS = (now() - restartAt) / 1000;
  const workerUpAtMs = Date.now(); // wall clock, as the histories' event times
  const status = new Map<string, { status: string; final: boolean; at: number }>();
  while (now() - killedAt < waitMs) {
    await forEachBounded(created, 16, async ({ taskId }) => {
      if (status.get(taskId)?.final) return;
      const t = await s.ctx.mcp.getTask(taskId);
      status.set(taskId, { status: t.status, final: t.status !== 'working', at: now() });
    });
    if (created.every((c) => status.get(c.taskId)?.final)) break;
    await sleep(pollMs);
  }
  const completed = created.filter((c) => status.get(c.taskId)?.status === 'completed');
  const lastCompletionS = completed.length ? (Math.max(...completed.map((c) => status.get(c.taskId)!.at)) - t0) / 1000 : NaN;
  const reexecutions = await s.reexecutions(created);
  const workflowTaskTimeouts = s.workflowTaskTimeouts ? await s.workflowTaskTimeouts(created) : undefined;
  const phases = onTemporal(s) ? await killPhases(s.ctx, ids(created), workerUpAtMs) : undefined;
  if (phases)
    log(
      `kill: ${s.key}: new worker up ${workerStartS.toFixed(2)} s after its start; slowest task after its timer fired: ${phases.slowestTrace}`,
    );
  completed.forEach((c) => s.ctx.live.delete(c.taskId));
  await s.clearLive();
  return {
    before,
    companionsCompleted: await completedCount(s, companionIds),
    tasks,
    seconds,
    completed: completed.length,
    waitS: waitMs / 1000,
    lastCompletionS,
    reexecutions,
    workflowTaskTimeouts,
    workerStartS,
    phases,
  };
}
