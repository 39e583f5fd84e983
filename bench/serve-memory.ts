/**
 * What `serve` holds during and after a poll load, and where: its RSS; V8's heap after the last
 * full GC (live objects, and what V8 keeps for them), read from `serve`'s --trace-gc; the rest
 * by region from /proc/<pid>/smaps (glibc's brk heap, other anonymous maps, mapped files); and
 * the worker's and Temporal's RSS at the same points.
 *
 *   node build/bench/serve-memory.js              1,000 live tasks, each polled every 1 s for 30 s (after a build)
 *   BENCH_MEMORY_TASKS=200 BENCH_MEMORY_SECONDS=10 node build/bench/serve-memory.js
 *   BENCH_MEMORY_NODE_ARGS="--max-semi-space-size=2" node build/bench/serve-memory.js
 *   MALLOC_ARENA_MAX=2 node build/bench/serve-memory.js     (the environment reaches serve)
 *
 * Live heap after the load against before says whether serve keeps objects; RSS against it says
 * how much V8 and the allocator keep without holding anything.
 */
import fs from 'node:fs';
import { mcpTasks } from '../test/support/mcp-client';
import type { Cleanup } from '../test/support/processes';
import { sleep } from '../test/support/wait';
import { createFixtureTasks, terminateLive, waitSettled } from './clients';
import { startInfra, startSampler } from './infra';
import { pollWindow } from './measure';
import { connectRaw, envInt, log, runBench } from './script';
import { fmt, markdownTable } from './stats';

const TASKS = envInt('BENCH_MEMORY_TASKS', 1000);
const SECONDS = envInt('BENCH_MEMORY_SECONDS', 30);
const NODE_ARGS = (process.env.BENCH_MEMORY_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** V8's heap after the last full GC, from --trace-gc: live objects and what V8 holds for them. */
function lastMarkCompact(output: string): { liveMb: number; committedMb: number } {
  const all = [...output.matchAll(/Mark-Compact[^\n]*?-> ([\d.]+) \(([\d.]+)\) MB/g)];
  const last = all[all.length - 1];
  return last ? { liveMb: Number(last[1]), committedMb: Number(last[2]) } : { liveMb: NaN, committedMb: NaN };
}

/** Resident memory by where it sits: brk heap (glibc's main arena), other anonymous maps (V8, arenas), files. */
function residentByRegion(pid: number): Record<'brk' | 'anon' | 'file', number> {
  const out = { brk: 0, anon: 0, file: 0 };
  let region: keyof typeof out = 'anon';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const map = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (map) region = map[1] === '[heap]' ? 'brk' : map[1].startsWith('/') ? 'file' : 'anon';
    else if (line.startsWith('Rss:')) out[region] += Number(line.split(/\s+/)[1]) / 1024;
  }
  return out;
}

const mb = (n: number) => fmt(n, 0);

async function main(cleanup: Cleanup): Promise<void> {
  const infra = await startInfra(cleanup, { pollIntervalMs: 1000, serveNodeArgs: ['--trace-gc', ...NODE_ARGS] });
  const sampler = startSampler(infra.pids);
  cleanup.add('sampler', undefined, () => sampler.stop());
  const ctx = {
    cfg: { setupConcurrency: 16 },
    mcp: mcpTasks(infra.url),
    client: await connectRaw(cleanup, infra.address),
    sampler,
    live: new Set<string>(),
  };
  const rows: Array<{
    label: string;
    rss: number;
    worker: number;
    temporal: number;
    v8: ReturnType<typeof lastMarkCompact>;
    regions: ReturnType<typeof residentByRegion>;
    peak: number;
  }> = [];
  const point = async (label: string) => {
    const { server: rss, worker, temporal } = sampler.current();
    const v8 = lastMarkCompact(infra.outputs.server());
    const regions = residentByRegion(infra.pids.server);
    rows.push({ label, rss, worker, temporal, v8, regions, peak: sampler.windowPeak().server });
    log(`${label}: RSS ${mb(rss)} MB, V8 heap ${mb(v8.liveMb)} live of ${mb(v8.committedMb)} MB, brk heap ${mb(regions.brk)} MB`);
    sampler.resetWindow();
  };
  try {
    await point('idle, after start');
    log(`creating ${TASKS} live tasks`);
    const { ids } = await createFixtureTasks(ctx, TASKS, 600);
    await waitSettled(ctx, ids);
    await point(`${TASKS} live tasks, before polling`);
    log(`polling each every 1 s for ${SECONDS} s`);
    const polled = await pollWindow(ctx, ids, 1000, SECONDS, async (id) => (await ctx.mcp.getTask(id)).status === 'working');
    log(`${polled.polls} polls, ${polled.errors} errors`);
    await point(`right after ${SECONDS} s of polling`);
    await sleep(30_000);
    await point('30 s later');
    await terminateLive(ctx);
    await sleep(30_000);
    await point('tasks ended, 30 s later');
  } finally {
    await terminateLive(ctx).catch(() => undefined);
  }
  console.log(
    `\nserve memory (MB), Node flags: ${NODE_ARGS.join(' ') || 'none'}, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? 'unset'}\n`,
  );
  const header = [
    'point',
    'serve RSS (peak since the point before)',
    'V8 heap: live / held',
    'malloc brk heap',
    'other anonymous',
    'files',
    'worker RSS',
    'Temporal RSS',
  ];
  console.log(
    markdownTable(
      header,
      rows.map((r) => [
        r.label,
        `${mb(r.rss)} (${mb(r.peak)})`,
        `${mb(r.v8.liveMb)} / ${mb(r.v8.committedMb)}`,
        mb(r.regions.brk),
        mb(r.regions.anon),
        mb(r.regions.file),
        mb(r.worker),
        mb(r.temporal),
      ]),
    ),
  );
}

if (require.main === module) runBench(main);
