/**
 * Packaging (issue 11, items 5 and 7): `npm pack` this project, install the tarball into a fresh
 * project with the peers, compile there the README's "Add MCP tasks to your Temporal worker" code
 * verbatim (strict tsc; its activities.ts uses the `./activity` entry), check that a schema/workflow mismatch does not compile, and run one
 * task with input end to end (README worker + server against a dev server, official ext-tasks
 * client). Uses dist/ as built; the install is --prefer-offline from the cache `npm ci` filled.
 */
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, readmeCodeBlocks, run, RunResult, spawnNode, stopNodeProcesses, writeJson } from '../support/consumer-project';
import { taskSession } from '../support/mcp';
import { freePort } from '../support/ports';
import { ROOT } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';

const SECTION = '## Add MCP tasks to your Temporal worker';
const README_FILES = ['workflows.ts', 'activities.ts', 'tools.ts', 'worker.ts', 'server.ts'];
/** The peers (and the compiler) at the versions of our own lock file. */
const CONSUMER_DEPS = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/workflow',
  '@temporalio/common',
  '@temporalio/plugin',
  '@temporalio/activity',
  'zod',
  'typescript',
  '@types/node',
];

const timings: Record<string, number> = {};
const timed = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings[label] = Date.now() - started;
  }
};
const tsc = (app: string, config: string) =>
  run(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], {
    cwd: app,
    env: cleanEnv(),
    timeoutMs: 120_000,
  });
const failure = (what: string, r: RunResult) => `${what} exited ${r.code} after ${r.ms} ms\n${r.stdout}\n${r.stderr}`;

let tmp: string;
let app: string;
let tarFiles: string[] = [];
let packedManifest: any;
let compiled: RunResult;
let mismatch: RunResult;
let temporalStarting: Promise<TestTemporal> | undefined;

beforeAll(async () => {
  const started = Date.now();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-pack-'));
  app = path.join(tmp, 'consumer');
  // the dev server starts while npm works (it is needed only by the end-to-end test)
  temporalStarting = startTestTemporal();
  temporalStarting.catch(() => undefined);

  const packed = await timed('npm pack', () =>
    run('npm', ['pack', '--pack-destination', tmp, '--ignore-scripts', '--json'], { cwd: ROOT, env: cleanEnv(), timeoutMs: 60_000 }),
  );
  if (packed.code !== 0) throw new Error(failure('npm pack', packed));
  const tarball = path.join(tmp, JSON.parse(packed.stdout)[0].filename);
  const listed = await run('tar', ['-tzf', tarball], { cwd: tmp });
  tarFiles = listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  packedManifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: tmp })).stdout);

  writeJson(path.join(app, 'package.json'), { name: 'mcp-tasks-consumer', version: '1.0.0', private: true });
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const deps = CONSUMER_DEPS.map((name) => `${name}@${lock[`node_modules/${name}`].version}`);
  const installed = await timed('npm install (tarball + peers, --prefer-offline)', () =>
    run('npm', ['install', tarball, ...deps, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: app,
      env: cleanEnv(),
      timeoutMs: 180_000,
    }),
  );
  if (installed.code !== 0) throw new Error(failure('npm install', installed));

  // the README's code, verbatim, and a variant whose schema disagrees with the workflow
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  for (const { file, code } of readmeCodeBlocks(readme, SECTION)) {
    fs.mkdirSync(path.join(app, 'src'), { recursive: true });
    fs.writeFileSync(path.join(app, 'src', file), code);
  }
  const tools = fs.readFileSync(path.join(app, 'src', 'tools.ts'), 'utf8');
  const wrongTools = tools.replace('amount: z.number().positive()', 'amount: z.string()');
  if (wrongTools === tools) throw new Error('README tools.ts no longer has `amount: z.number().positive()`: update the mismatch variant');
  fs.writeFileSync(path.join(app, 'src', 'tools-mismatch.ts'), wrongTools);
  // strict, CommonJS (no "type" in package.json), node16; skipLibCheck as `tsc --init` sets it:
  // without it @temporalio/common's and ext-tasks' own declarations do not type-check
  writeJson(path.join(app, 'tsconfig.json'), {
    compilerOptions: {
      strict: true,
      module: 'node16',
      moduleResolution: 'node16',
      target: 'ES2022',
      outDir: 'dist',
      rootDir: 'src',
      esModuleInterop: true,
      skipLibCheck: true,
    },
    include: ['src'],
    exclude: ['src/tools-mismatch.ts'],
  });
  writeJson(path.join(app, 'tsconfig.mismatch.json'), {
    extends: './tsconfig.json',
    compilerOptions: { noEmit: true },
    include: ['src/tools-mismatch.ts'],
    exclude: [],
  });
  [compiled, mismatch] = await timed('tsc (README and mismatch, in parallel)', () =>
    Promise.all([tsc(app, 'tsconfig.json'), tsc(app, 'tsconfig.mismatch.json')]),
  );
  timings['beforeAll total'] = Date.now() - started;
}, 300_000);

afterAll(async () => {
  await stopNodeProcesses();
  const temporal = await temporalStarting?.catch(() => undefined);
  await temporal?.stop();
  if (temporal) fs.rmSync(path.dirname(temporal.dbFile), { recursive: true, force: true });
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`packaging test timings (ms): ${JSON.stringify(timings, null, 1)}`);
}, 60_000);

describe('the npm tarball', () => {
  test('carries no tests, fixtures, examples build output, source maps or TypeScript sources', () => {
    const forbidden = tarFiles.filter(
      (f) =>
        /^(test|src|build|examples|bench)\//.test(f) ||
        (/^scripts\//.test(f) && f !== 'scripts/install-temporal-cli.js') ||
        /(^|\/)fixtures\//.test(f) ||
        /\.(map|test\.[jt]s)$/.test(f) ||
        (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)),
    );
    expect(forbidden).toEqual([]);
  });

  test('carries the entry points, their declarations, the interceptor module and the CLI', () => {
    const required = [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/workflows/index.js',
      'dist/workflows/index.d.ts',
      'dist/worker/index.js',
      'dist/worker/index.d.ts',
      'dist/activities/index.js',
      'dist/activities/index.d.ts',
      'dist/workflows/interceptors.js',
      'dist/cli/index.js',
    ];
    expect(required.filter((f) => !tarFiles.includes(f))).toEqual([]);
    expect(Object.keys(packedManifest.exports)).toEqual(expect.arrayContaining(['.', './workflow', './worker', './activity']));
    expect(packedManifest.peerDependencies['@temporalio/activity']).toBeDefined(); // the activity entry's one import
    // every target package.json names (exports, main, types, bin) is in the tarball
    const targets = [packedManifest.main, packedManifest.types, ...Object.values(packedManifest.bin ?? {})];
    for (const entry of Object.values(packedManifest.exports))
      targets.push(...(typeof entry === 'string' ? [entry] : Object.values(entry as object)));
    expect(targets.map((t: string) => t.replace(/^\.\//, '')).filter((t) => !tarFiles.includes(t))).toEqual([]);
  });
});

describe('a fresh project with the tarball and the peers', () => {
  test('compiles the README code verbatim with strict tsc', () => {
    expect(compiled.code === 0 ? '' : failure('tsc -p tsconfig.json', compiled)).toBe('');
    for (const f of README_FILES) expect(fs.existsSync(path.join(app, 'dist', f.replace(/\.ts$/, '.js')))).toBe(true);
  });

  test('does not compile a tool whose schema disagrees with its workflow argument', () => {
    expect(mismatch.code).not.toBe(0);
    const errors = mismatch.stdout.split('\n').filter((l) => / error TS\d+:/.test(l));
    expect(errors.length).toBeGreaterThan(0);
    // the error is the workflow's argument, in the variant only
    expect(errors.every((l) => l.startsWith('src/tools-mismatch.ts('))).toBe(true);
    expect(mismatch.stdout).toMatch(
      /amount: string.*is not assignable to.*amount: number|Type 'string' is not assignable to type 'number'/,
    );
  });

  test('runs approve_refund end to end: README worker and server, ext-tasks client, one elicitation', async () => {
    expect(compiled.code).toBe(0);
    const temporal = await timed('Temporal dev server (waited for)', () => temporalStarting!);
    const env = cleanEnv({ TEMPORAL_ADDRESS: temporal.address, PORT: String(await freePort()) });
    const started = Date.now();
    const worker = spawnNode(app, 'dist/worker.js', env);
    const server = spawnNode(app, 'dist/server.js', env);
    const [[, url]] = await Promise.all([
      server.waitFor(/MCP endpoint: (\S+)/),
      worker.waitFor(/Worker state changed.*RUNNING/), // after bundling mcp-temporal-tasks/workflow from node_modules
    ]);
    timings['worker + server ready'] = Date.now() - started;

    const seen: any[] = [];
    const { session, close } = await taskSession(url, async (request: any) => {
      seen.push(request);
      return { action: 'accept', content: { approved: true } } as any;
    });
    try {
      const taskStarted = Date.now();
      const execution = await session.callTool('approve_refund', { orderId: 'A-1', amount: 12.5 });
      const { outcome } = await execution.settle();
      timings['task (call to result)'] = Date.now() - taskStarted;
      const result = resultFromTaskOutcome(outcome) as any;
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ kind: 'elicitation', params: { message: 'Refund 12.5 for order A-1?' } });
      expect(result.isError).toBeFalsy();
      expect(result.content.map((c: any) => c.text).join('')).toBe('Refunded: refund-A-1-12.5');
    } finally {
      await close();
    }
  }, 90_000);
});
