/**
 * What a cached workflow costs the worker: for each cache size, a fresh stack holds N running
 * wait_and_echo tasks (all past their first workflow task) and the worker's RSS is read.
 * (RSS with the cache as large as N − RSS with no cache) / N = memory per cached workflow.
 *
 *   node build/bench/worker-cache-memory.js            N = 1000, caches 0, 250, 500, 1000 (after a build)
 *   BENCH_LIVE_TASKS=300 node build/bench/worker-cache-memory.js
 */
import { mcpTasks } from '../test/support/mcp-client';
import { Cleanup } from '../test/support/processes';
import { sleep } from '../test/support/wait';
import { createFixtureTasks, terminateLive, waitSettled } from './clients';
import { startInfra, startSampler } from './infra';
import { connectRaw, envInt, log, runBench } from './script';
import { markdownTable } from './stats';

async function measureCache(maxCached: number, tasks: number) {
  const cleanup = new Cleanup();
  process.env.MCP_WORKER_MAX_CACHED_WORKFLOWS = String(maxCached); // the worker reads it from its environment
  try {
    const infra = await startInfra(cleanup, { pollIntervalMs: 1000 });
    const cfg = { setupConcurrency: 32 };
    const ctx = { cfg, mcp: mcpTasks(infra.url), client: await connectRaw(cleanup, infra.address), live: new Set<string>() };
    const sampler = startSampler(infra.pids);
    cleanup.add('sampler', undefined, () => sampler.stop());
    await sleep(2000);
    const idle = sampler.current().worker;
    const { ids } = await createFixtureTasks(ctx, tasks, 600);
    await waitSettled(ctx, ids);
    await sleep(3000);
    const loaded = sampler.current().worker;
    const peak = sampler.peak().worker;
    await terminateLive(ctx);
    log(
      `cache ${maxCached}: worker RSS idle ${idle.toFixed(0)} MB, with ${tasks} running tasks ${loaded.toFixed(0)} MB (peak ${peak.toFixed(0)})`,
    );
    return { maxCached, tasks, idleMb: idle, loadedMb: loaded, peakMb: peak };
  } finally {
    await cleanup.run();
  }
}

async function main(): Promise<void> {
  const tasks = envInt('BENCH_LIVE_TASKS', 1000);
  const rows = [];
  for (const maxCached of [0, 250, 500, tasks]) rows.push(await measureCache(maxCached, tasks));
  const none = rows[0].loadedMb;
  const table = rows.map((r) => {
    const cached = Math.min(r.maxCached, r.tasks);
    const extra = r.loadedMb - none;
    return [
      r.maxCached,
      Math.round(r.idleMb),
      Math.round(r.loadedMb),
      Math.round(extra),
      cached ? Math.round((1024 * extra) / cached) : undefined,
    ];
  });
  console.log(
    markdownTable(
      ['max cached workflows', 'worker RSS idle (MB)', 'with running tasks (MB)', '− no cache (MB)', 'per cached workflow (KB)'],
      table,
    ),
  );
  console.log(`\n${tasks} running tasks in each row.`);
}

runBench(() => main());
