/**
 * Where the project is, for the support library both as TypeScript (jest, from test/support) and
 * compiled (benches and scripts, from build/test/support): the root is the nearest folder with
 * the package's package.json, so paths do not depend on which of the two is running.
 */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'mcp-temporal-tasks') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no mcp-temporal-tasks package.json above ${from}`);
  }
}

export const ROOT = findRoot(__dirname);
/** The built CLI (`npm run build`). */
export const CLI = path.join(ROOT, 'dist', 'cli', 'index.js');
/** The demo tools module, built by tsconfig.examples.json. */
export const DEMO_TOOLS = path.join(ROOT, 'build', 'examples', 'demo', 'index.js');
/** The benches' tools module: the demo tools and the raw baseline workflow (plainTimer). */
export const BENCH_TOOLS = path.join(ROOT, 'build', 'bench', 'tools', 'index.js');
/** The tests' tools module: the demo tools and the conformance fixtures. */
export const TEST_TOOLS = path.join(ROOT, 'build', 'test', 'fixtures', 'index.js');
/** Reports a new thread's young generation after a burst (a worker thread's script, or a `--require` preload). */
export const YOUNG_GENERATION_PROBE = path.join(ROOT, 'test', 'fixtures', 'young-generation-probe.js');

/**
 * A module of the built package (dist/), e.g. fromDist<typeof import('../../dist/cli/dev-server')>('cli/dev-server').
 * The support library requires the build rather than src/ so that, compiled, it does not carry a
 * second copy of the sources, and so that errors it checks with instanceof are dist's own.
 */
export function fromDist<T>(module: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(ROOT, 'dist', module)) as T;
}
