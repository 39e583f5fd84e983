/**
 * `npm run bench:routes [-- --list]`: how many distinct source files of the package one request
 * runs through, per MCP method, on 2026-07-28. `serve` runs with bench/route-coverage-preload
 * (V8 precise coverage, call counts); around each measured request the counts are taken (the
 * take before resets them) and the files counted are the scripts under dist/ with a function
 * called. Every request is sent once as a warm-up (the first of its kind loads code and fills
 * pools) and the second identical one is measured. "From the handler" leaves out the endpoint
 * (ENDPOINT below) and the barrels (index files of `export … from` only, which CommonJS compiles
 * into getters that run on every use: a reader follows the import, not the barrel). The idle row is a window without a request: what timers run anyway (a
 * request's window holds them too). With --list, the files of each route.
 *
 *   npm run bench:routes -- --list
 *   node build/bench/route-files.js [--list]     (after a build)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, mcpTasks } from '../test/support/mcp-client';
import { ROOT } from '../test/support/paths';
import type { Cleanup } from '../test/support/processes';
import { sleep, waitFor } from '../test/support/wait';
import { rawQuery } from './clients';
import { startInfra } from './infra';
import type { CoveredScript } from './route-coverage-preload';
import { connectRaw, log, runBench } from './script';

const PRELOAD = path.join(__dirname, 'route-coverage-preload.js');
const DIST = path.join(fs.realpathSync(ROOT), 'dist') + path.sep;
/**
 * The endpoint: HTTP, auth, the revisions' fronts, the server's assembly and the choice of a
 * request's revision (revisions.js, which the pooled servers' factory looks up), and the CLI.
 */
const ENDPOINT = /^(mcp\/(http|auth)\/|mcp\/rev[^/]*\/front\.js$|mcp\/(server|server-factory|revisions)\.js$|cli\/)/;
/** Quiet time before each window, so that what the previous request set off has run. */
const SETTLE_MS = 300;
const IDLE_MS = 200;

/** Files under dist/ (relative to it) → the functions called in them. */
type Covered = Map<string, string[]>;

/** Takes the coverage of `serve` (pid) since the last take. */
async function takeCoverage(pid: number, file: string): Promise<Covered> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  await waitFor(async () => (fs.existsSync(file) ? true : undefined), 10_000, 10, 'no coverage from serve');
  const taken = JSON.parse(fs.readFileSync(file, 'utf8')) as { scripts?: CoveredScript[]; error?: string };
  fs.rmSync(file, { force: true });
  if (!taken.scripts) throw new Error(`takePreciseCoverage: ${taken.error}`);
  const covered: Covered = new Map();
  for (const { url, functions } of taken.scripts) {
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    if (file.startsWith(DIST))
      covered.set(
        path.relative(DIST, file),
        functions.map((f) => f.name),
      );
  }
  return covered;
}

interface Route {
  name: string;
  request: string;
  covered: Covered;
  note?: string;
}

async function main(cleanup: Cleanup): Promise<void> {
  const list = process.argv.includes('--list');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-routes-'));
  cleanup.add('coverage folder', undefined, () => fs.rmSync(dir, { recursive: true, force: true }));
  const coverageFile = path.join(dir, 'coverage.json');
  process.env.MTT_ROUTE_COVERAGE_FILE = coverageFile; // inherited by the stack; only serve has the preload that reads it
  const infra = await startInfra(cleanup, { pollIntervalMs: 1000, serveNodeArgs: ['--require', PRELOAD] });
  log(`Temporal ${infra.address}, MCP ${infra.url} (serve pid ${infra.pids.server}, with coverage)`);
  const mcp = mcpTasks(infra.url);
  const ctx = { client: await connectRaw(cleanup, infra.address) };
  const take = () => takeCoverage(infra.pids.server, coverageFile);
  const measured = async (send: () => Promise<unknown>): Promise<Covered> => {
    await sleep(SETTLE_MS);
    await take(); // discarded: resets the counts
    await send();
    return take();
  };
  /** Runs send(warm-up input) unmeasured, then measures send(measured input). */
  const warmThenMeasure = async <T>(inputs: [T, T], send: (input: T) => Promise<unknown>) => {
    await send(inputs[0]);
    return measured(() => send(inputs[1]));
  };
  const inputRequired = (taskId: string) =>
    waitFor(
      async () => (Object.keys((await rawQuery(ctx, taskId)).inputRequests ?? {}).length ? true : undefined),
      30_000,
      100,
      `${taskId} never asked for input`,
    );
  const routes: Route[] = [];

  await sleep(SETTLE_MS);
  await take();
  await sleep(IDLE_MS);
  routes.push({ name: '(idle)', request: `no request, ${IDLE_MS} ms`, covered: await take() });

  const created: string[] = [];
  const createCovered = await warmThenMeasure([0, 1], async () => created.push((await mcp.createWaitAndEcho(600)).taskId));
  routes.push({ name: 'tools/call', request: 'wait_and_echo as a task (Tasks extension declared)', covered: createCovered });

  // tasks/get of the running task just created: the first read (warm-up) and the measured second
  const polled = created[1];
  const getCovered = await warmThenMeasure([polled, polled], (taskId) => mcp.getTask(taskId));
  routes.push({ name: 'tasks/get', request: '2nd read of a running wait_and_echo', covered: getCovered, note: readPath(getCovered) });
  await sleep(1000); // the watch the second read started has read the task
  const thirdCovered = await measured(() => mcp.getTask(polled));
  routes.push({ name: 'tasks/get', request: '3rd read of the same task', covered: thirdCovered, note: readPath(thirdCovered) });

  // tasks/update answering approve_expense's elicitation (waited for through Temporal: a tasks/get would start a watch)
  const expenses = await Promise.all(
    [1, 2].map(async () => (await mcp.createTask('approve_expense', { amount: 12.5, description: 'books' })).taskId),
  );
  await Promise.all(expenses.map(inputRequired));
  const approval = { approval: { action: 'accept', content: { approved: true } } };
  const updateCovered = await warmThenMeasure(expenses as [string, string], (taskId) =>
    call(infra.url, 'tasks/update', { taskId, inputResponses: approval }),
  );
  routes.push({ name: 'tasks/update', request: "approve_expense's elicitation answered (accept)", covered: updateCovered });

  // tasks/cancel of running tasks never read through tasks/get (no watch)
  const toCancel = await Promise.all([1, 2].map(async () => (await mcp.createWaitAndEcho(600)).taskId));
  const cancelCovered = await warmThenMeasure(toCancel as [string, string], (taskId) => mcp.cancelTask(taskId));
  routes.push({ name: 'tasks/cancel', request: 'a running wait_and_echo', covered: cancelCovered });

  console.log(`\n${renderTable(routes)}\n`);
  if (list) console.log(`${renderLists(routes)}\n`);
}

/** Which way tasks/get read the task: Temporal (TaskReads, a describe()) or the polled-task watch. */
function readPath(covered: Covered): string {
  const fromTemporal = covered.has(path.join('tasks', 'read', 'task-reads.js'));
  const watching = covered.has(path.join('tasks', 'watch', 'task-watcher.js'));
  const polled = covered.get(path.join('tasks', 'watch', 'polled-tasks.js')) ?? [];
  return [
    fromTemporal ? 'read from Temporal (TaskReads)' : 'answered from the watch (no TaskReads)',
    polled.includes('watch') ? 'started a watch' : '',
    watching ? 'task-watcher ran' : '',
  ]
    .filter(Boolean)
    .join('; ');
}

const isEndpoint = (file: string) => ENDPOINT.test(file.split(path.sep).join('/'));
/** A barrel: its source (under src/, or examples' build) holds nothing but `export … from` statements. */
function isBarrel(file: string): boolean {
  const source = path.join(ROOT, 'src', file.replace(/\.js$/, '.ts'));
  if (!fs.existsSync(source)) return false;
  const statements = fs
    .readFileSync(source, 'utf8')
    .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
  return statements.every((s) => /^export (type )?(\{[^}]*\}|\*( as \w+)?) from '[^']+'$/.test(s));
}

function renderTable(routes: Route[]): string {
  const rows = routes.map((r) => {
    const files = [...r.covered.keys()];
    const endpoint = files.filter(isEndpoint).length;
    const barrels = files.filter((f) => !isEndpoint(f) && isBarrel(f)).length;
    const fromHandler = files.length - endpoint - barrels;
    return `| ${r.name} | ${r.request} | ${files.length} | ${fromHandler} | ${endpoint} | ${barrels} | ${r.note ?? ''} |`;
  });
  return [
    'Distinct files of dist/ (node_modules excluded) with a function called, per request (revision 2026-07-28; the second identical request of each kind):',
    '',
    '| route | request | files (total) | from the handler | endpoint files | barrels | notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

function renderLists(routes: Route[]): string {
  const idle = routes[0].covered;
  const sections = routes.map((r) => {
    const lines = [...r.covered.keys()].sort().map((f) => {
      const tags = [isEndpoint(f) ? 'endpoint' : '', isBarrel(f) ? 'barrel' : '', r !== routes[0] && idle.has(f) ? 'also idle' : ''].filter(
        Boolean,
      );
      return `- dist/${f}${tags.length ? ` (${tags.join(', ')})` : ''}`;
    });
    return [`### ${r.name}: ${r.request}`, '', ...(lines.length ? lines : ['(none)'])].join('\n');
  });
  return sections.join('\n\n');
}

if (require.main === module) runBench(main, 'bench:routes');
