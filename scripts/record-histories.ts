#!/usr/bin/env node
// Records the workflow histories that test/in-process/replay.test.ts replays (`npm run record-histories`,
// which builds first). It starts a real Temporal dev server (temp SQLite, free ports), a CLI
// worker and a CLI serve with the tests' tools module (demo tools + fixtures), drives each
// scenario of test/histories/scenarios.yaml through MCP JSON-RPC over HTTP, waits for each
// workflow to close and writes every run's history to
// test/histories/<name>.json as { scenario, tool, workflowId, runId, history } where `history` is
// Temporal's proto JSON (what the Temporal UI and `temporal workflow show -o json` give, and what
// the SDK's historyToJSON writes; ./history-runs says why historyToJSON itself is not used).
//
// `RECORD_MISSING=1 npm run record-histories` records only the scenarios that have no file yet;
// `RECORD_ONLY=name,name` only those; `RECORD_OUT=dir` writes elsewhere (a trial run);
// `npm run record-histories -- --help` lists the scenarios.
// Re-record only for a change that no running task can see (e.g. before the first release of a
// runtime change). A change to a shipped command sequence goes behind patched() instead, and the
// old histories must keep replaying: see docs/production.md, "Deploying without breaking running tasks".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { isTerminal, mcpTasks } from '../test/support/mcp-client';
import { fromDist, ROOT, TEST_TOOLS } from '../test/support/paths';
import { Cleanup } from '../test/support/processes';
import { startProcessStack } from '../test/support/servers';
import { sleep } from '../test/support/wait';
import { allRuns, closedRuns, type Run } from './history-runs';
import { check, drive, type HistoryEvent, loadScenarios, matches, type Scenario } from './history-scenarios';

const OUT = process.env.RECORD_OUT ? path.resolve(process.env.RECORD_OUT) : path.join(ROOT, 'test', 'histories');
const { historyLimit: HISTORY_LIMIT, scenarios: SCENARIOS } = loadScenarios();

const { TASK_RUNTIME_REVISION } = fromDist<typeof import('../dist/contract')>('contract');
/**
 * A recording is of the task runtime revision the server starts tasks for: from revision 2 on,
 * its files are named `<scenario>.rev<N>.json`, so the histories of tasks started before (no
 * revision in their memo, patch markers) stay beside them and keep replaying.
 */
const REVISION = TASK_RUNTIME_REVISION >= 2 ? `.rev${TASK_RUNTIME_REVISION}` : '';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(
      `npm run record-histories: records into ${path.relative(ROOT, OUT)}\n  RECORD_ONLY=name,name  RECORD_MISSING=1  RECORD_OUT=dir\nscenarios:\n${SCENARIOS.map((s) => `  ${s.name}: ${s.about}`).join('\n')}`,
    );
    return;
  }
  const cleanup = new Cleanup();
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup.run().finally(() => process.exit(130)));
  process.on('exit', () => cleanup.killLeftovers());
  try {
    // the demo and invoice activities' ledger goes with the recording's temp folder
    const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-record-ledger-'));
    cleanup.add('ledger', undefined, async () => fs.rmSync(ledger, { recursive: true, force: true }));
    const stack = await startProcessStack(cleanup, {
      toolsModule: TEST_TOOLS,
      env: { MCP_LOG_LEVEL: 'warn', MCP_TASKS_LEDGER_DIR: ledger },
      serveArgs: ['--history-limit', String(HISTORY_LIMIT)],
    });
    console.log(`Temporal dev server on ${stack.address}`);
    const connection = await Connection.connect({ address: stack.address });
    cleanup.add('client connection', undefined, () => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const mcp = mcpTasks(stack.url, { clientName: 'record-histories' });
    const head = gitHead();

    fs.mkdirSync(OUT, { recursive: true });
    let written = 0;
    // RECORD_ONLY=name,name records only those scenarios; RECORD_MISSING=1 only those with no file yet
    // (committed histories are the tasks already running: add files, do not re-record them)
    const only = process.env.RECORD_ONLY?.split(',');
    const recorded = (s: Scenario) =>
      fs.readdirSync(OUT).some((f) => f === `${s.name}${REVISION}.json` || f.startsWith(`${s.name}${REVISION}.run1.`));
    const missingOnly = process.env.RECORD_MISSING === '1';
    for (const scenario of SCENARIOS.filter((s) => (!only || only.includes(s.name)) && (!missingOnly || !recorded(s)))) {
      const started = Date.now();
      if (scenario.sync) {
        // no task: the server ran the workflow and answered; find that workflow by its type
        const before = new Set(await workflowIdsOfType(client, scenario.tool));
        const result = await mcp.rpc('tools/call', { name: scenario.tool, arguments: scenario.args });
        if (!matches(result, scenario.expect))
          throw new Error(`${scenario.name}: unexpected result ${JSON.stringify(result).slice(0, 500)}`);
        let ids: string[] = [];
        for (let i = 0; i < 100 && ids.length === 0; i++, await sleep(100))
          ids = (await workflowIdsOfType(client, scenario.tool)).filter((id) => !before.has(id));
        if (ids.length !== 1) throw new Error(`${scenario.name}: expected one new ${scenario.tool} workflow, found ${ids.length}`);
        written += writeRuns(scenario, ids[0], await closedRuns(client, ids[0]), head);
        console.log(`${scenario.name}: ${result.resultType}, ${Date.now() - started} ms`);
        continue;
      }
      const created = await create(mcp, scenario);
      if (created.resultType !== 'task' || !created.taskId)
        throw new Error(`${scenario.name}: no task created: ${JSON.stringify(created)}`);
      const taskId: string = created.taskId;
      if (scenario.drive) await drive(scenario.drive, mcp, taskId, client);
      const final = await mcp.waitForTask(taskId, isTerminal, 60_000).catch(async (err: Error) => {
        const runs = await allRuns(client, taskId);
        const dump = path.join(os.tmpdir(), `${scenario.name}-${Date.now()}.json`);
        fs.writeFileSync(
          dump,
          JSON.stringify(
            runs.map((r) => JSON.parse(r.json)),
            null,
            1,
          ),
        );
        throw new Error(`${scenario.name}: ${err.message}; its runs' histories so far: ${dump}`);
      });
      if (!matches(final, scenario.expect))
        throw new Error(`${scenario.name}: unexpected final task ${JSON.stringify(final).slice(0, 500)}`);
      const runs = await closedRuns(client, taskId);
      if (runs.length < (scenario.minRuns ?? 1))
        throw new Error(`${scenario.name}: ${runs.length} run(s), expected at least ${scenario.minRuns}`);
      check(
        scenario,
        runs.flatMap((r) => JSON.parse(r.json).events as HistoryEvent[]),
        TASK_RUNTIME_REVISION,
      );
      written += writeRuns(scenario, taskId, runs, head);
      console.log(`${scenario.name}: ${final.status}, ${runs.length} run(s), ${Date.now() - started} ms`);
    }
    fs.writeFileSync(path.join(OUT, 'README.md'), readme());
    console.log(`wrote ${written} histories to ${path.relative(ROOT, OUT)}`);
  } finally {
    await cleanup.run();
  }
}

/** tools/call as a task; with inputResponses, after the round the tool asks for before the task exists. */
async function create(mcp: ReturnType<typeof mcpTasks>, scenario: Scenario): Promise<any> {
  const params = { name: scenario.tool, arguments: scenario.args };
  if (!scenario.inputResponses) return mcp.rpc('tools/call', params);
  const first = await mcp.rpc('tools/call', params);
  if (first.resultType !== 'input_required') throw new Error(`expected input_required, got ${first.resultType}`);
  return mcp.rpc('tools/call', { ...params, inputResponses: scenario.inputResponses });
}

/** Writes the scenario's runs (one file, or .runN files for a chain); its old files are replaced, every other file kept. */
function writeRuns(scenario: Scenario, workflowId: string, runs: Run[], head: string): number {
  const name = `${scenario.name}${REVISION}`;
  for (const stale of fs.readdirSync(OUT).filter((f) => f === `${name}.json` || (f.startsWith(`${name}.run`) && f.endsWith('.json'))))
    fs.rmSync(path.join(OUT, stale));
  runs.forEach((run, i) => {
    const file = runs.length === 1 ? `${name}.json` : `${name}.run${i + 1}.json`;
    const record = {
      scenario: REVISION ? `${scenario.about}; task runtime revision ${TASK_RUNTIME_REVISION}` : scenario.about,
      tool: scenario.tool,
      recordedAt: `${new Date().toISOString().slice(0, 10)}, commit ${head}`,
      workflowId,
      runId: run.runId,
      run: runs.length === 1 ? undefined : `${i + 1}/${runs.length}`,
      history: JSON.parse(run.json),
    };
    fs.writeFileSync(path.join(OUT, file), JSON.stringify(record, null, 1) + '\n');
  });
  return runs.length;
}

/** Workflow ids of every execution of a workflow type (visibility: the dev server's SQLite). */
async function workflowIdsOfType(client: Client, workflowType: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = '${workflowType}'` })) ids.push(wf.workflowId);
  return ids;
}

/** The folder's index: every history in it, recorded now or kept from before. */
function readme(): string {
  const lines = fs
    .readdirSync(OUT)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const record = JSON.parse(fs.readFileSync(path.join(OUT, file), 'utf8'));
      const events: Array<{ eventType: string }> = record.history?.events ?? record.events ?? [];
      const closed = events.length ? events[events.length - 1].eventType.replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '').toLowerCase() : '?';
      return `- \`${file}\`: ${record.scenario ?? 'a history added by hand'}${record.run ? ` (run ${record.run})` : ''}; ${events.length} events, ${closed}${record.recordedAt ? `; recorded at ${record.recordedAt}` : ''}`;
    });
  return `# Recorded task histories

Replayed by \`test/in-process/replay.test.ts\` with the SDK's replayer and the worker's own workflow code and
interceptors (McpTasksPlugin): a change that alters the command sequence of a shipped workflow
(the task runtime's or a tool's) fails there with a nondeterminism error. Such a change goes
behind \`patched()\`, and these files stay: they are the tasks already running when it ships.
See docs/production.md, "Deploying without breaking running tasks".

\`npm run record-histories\` records the scenarios of \`scenarios.yaml\` against a real dev
server, a CLI worker and a CLI serve (history limit ${HISTORY_LIMIT}), driven over MCP; it replaces the
files of the scenarios it records and keeps every other file. A history downloaded from the
Temporal UI or \`temporal workflow show --workflow-id <taskId> --output json\` can be dropped in as is.

${lines.join('\n')}
`;
}

function gitHead(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', 'src/workflows', 'src/contract.ts', 'examples', 'test/fixtures'],
      { cwd: ROOT, encoding: 'utf8' },
    ).trim();
    return dirty ? `${sha} (plus uncommitted changes to workflow code)` : sha;
  } catch {
    return 'unknown (no git)';
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
