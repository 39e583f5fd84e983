#!/usr/bin/env node
// `npm run test:generative -- --cases N --seed S`: the generative test (test/generative/) with a
// larger budget than `npm test` gives it. The fast tier runs N cases; the process tier (worker
// SIGKILLs) runs --process-cases of them, from the build (npm run test:generative builds first).
import { spawnSync } from 'node:child_process';
import { ROOT } from '../test/support/paths';

export const USAGE = `usage: npm run test:generative -- [--cases N] [--seed S] [--concurrency C] [--process-cases N] [--without KINDS] [--verbose]
  --cases N          cases of the fast tier (default 1000)
  --seed S           fast-check's seed, an integer: the same seed runs the same cases (default: random; printed on failure)
  --concurrency C    cases running at the same time, 1 to 32 (default 12)
  --process-cases N  cases of the process tier, with worker SIGKILLs (default: a tenth of --cases; 0: none)
  --without KINDS    op or event kinds never generated, comma-separated (e.g. bug,scopeTimeout): looks past a failure class being fixed
  --verbose          a line per case`;

export class UsageError extends Error {}

const INT = /^-?\d+$/;

function integer(flag: string, value: string | undefined, min: number, max: number): number {
  if (value === undefined || !INT.test(value))
    throw new UsageError(`${flag} needs an integer, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export interface GenerativeOptions {
  cases: number;
  seed?: number;
  concurrency: number;
  processCases: number;
  without: string[];
  verbose: boolean;
}

/** The flags as options; throws UsageError naming the flag for anything it cannot take. */
export function parseArgs(argv: string[]): GenerativeOptions {
  const opts: Omit<GenerativeOptions, 'processCases'> & { processCases?: number } = {
    cases: 1000,
    concurrency: 12,
    without: [],
    verbose: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => argv[++i];
    switch (flag) {
      case '--cases':
        opts.cases = integer(flag, value(), 1, 1_000_000);
        break;
      case '--seed':
        opts.seed = integer(flag, value(), -(2 ** 31), 2 ** 31 - 1);
        break;
      case '--concurrency':
        opts.concurrency = integer(flag, value(), 1, 32);
        break;
      case '--process-cases':
        opts.processCases = integer(flag, value(), 0, 1_000_000);
        break;
      case '--without': {
        const kinds = value();
        if (!kinds || !/^\w+(,\w+)*$/.test(kinds))
          throw new UsageError(`--without needs kinds separated by commas, got ${kinds === undefined ? 'nothing' : `"${kinds}"`}`);
        opts.without = kinds.split(',');
        break;
      }
      case '--verbose':
        opts.verbose = true;
        break;
      case '--help':
      case '-h':
        throw new UsageError('');
      default:
        throw new UsageError(`unknown argument "${flag}"`);
    }
  }
  return { ...opts, processCases: opts.processCases ?? Math.ceil(opts.cases / 10) };
}

/** What the test files read (test/generative/property.ts, processes.test.ts). */
export function envOf(opts: GenerativeOptions): Record<string, string> {
  return {
    MTT_GEN_CASES: String(opts.cases),
    MTT_GEN_PROCESS_CASES: String(opts.processCases),
    MTT_GEN_CONCURRENCY: String(opts.concurrency),
    ...(opts.seed === undefined ? {} : { MTT_GEN_SEED: String(opts.seed) }),
    ...(opts.without.length ? { MTT_GEN_WITHOUT: opts.without.join(',') } : {}),
    ...(opts.verbose ? { MTT_GEN_VERBOSE: '1' } : {}),
  };
}

function run(command: string, args: string[], env: Record<string, string>): number {
  const { status, signal } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return status ?? (signal ? 1 : 0);
}

function main(): void {
  let opts: GenerativeOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) console.error(`test:generative: ${err.message}`);
    console.error(USAGE);
    process.exit(err.message ? 2 : 0);
  }
  const files = ['test/generative/generative.test.ts', ...(opts.processCases > 0 ? ['test/generative/processes.test.ts'] : [])];
  process.exit(run(process.execPath, [require.resolve('jest/bin/jest'), '--runInBand', ...files], envOf(opts)));
}

if (require.main === module) main();
