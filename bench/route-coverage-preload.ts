/**
 * The Node preload of bench/route-files (`serve` runs with `--require build/bench/route-coverage-preload.js`):
 * V8 precise coverage with call counts from before the CLI loads. On SIGUSR2 it takes the counts
 * since the last take (in callCount mode a take also resets them) and writes them to
 * $MTT_ROUTE_COVERAGE_FILE: first beside it, then renamed, so the file appears only complete.
 * Written are the scripts outside node_modules with a function called, and those functions.
 * Without the variable, or in a worker thread, it does nothing.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

export interface CoveredScript {
  url: string;
  functions: Array<{ name: string; count: number }>;
}

const file = process.env.MTT_ROUTE_COVERAGE_FILE;

if (file && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  process.on('SIGUSR2', () => {
    session.post('Profiler.takePreciseCoverage', (err, taken) => {
      const scripts: CoveredScript[] = [];
      for (const script of err ? [] : taken.result) {
        if (script.url.includes('/node_modules/')) continue;
        // detailed: false gives one range per function, whose count is the function's calls
        const functions = script.functions
          .map((f) => ({ name: f.functionName, count: f.ranges[0]?.count ?? 0 }))
          .filter((f) => f.count > 0);
        if (functions.length) scripts.push({ url: script.url, functions });
      }
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(err ? { error: err.message } : { scripts }));
      fs.renameSync(`${file}.tmp`, file);
    });
  });
}
