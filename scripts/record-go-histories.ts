#!/usr/bin/env node
// Records the histories examples/go/tools/replay_test.go replays: the Go example tools run by a
// Go worker built from a copy of examples/go (`--helper <dir>`, default this checkout's), so the
// histories of an older helper can be recorded from a git worktree of an older commit:
//
//   git worktree add --detach /tmp/go-old <commit>
//   npm run record-go-histories -- --helper /tmp/go-old/examples/go --as v0
//   npm run record-go-histories -- --as v1
//   git worktree remove /tmp/go-old
//
// It starts a Temporal dev server (temp SQLite, free ports), that worker and a CLI serve of
// examples/go/tools.json, drives each scenario of ./go-history-scenarios over MCP (or, for the
// claim guard, starts the run as the server does for a caller without Tasks:
// TemporalTaskStore.start with claimWithinMs), waits for the workflow to close and writes every
// run's history to
// examples/go/tools/testdata/histories/<scenario>.<as>[.runN].json: Temporal's proto JSON (see
// ./history-runs), with a few keys of ours before `events`, which the Go SDK's JSON reader
// skips (it reads with DiscardUnknown). `<as>` names the helper: v0 before the claim guard, v1
// with it (GetVersion mcp-tasks.claim-guard = 1). Files of other scenarios and helpers are kept:
// they are the runs already in flight when a helper change ships; a change to the helper's
// command sequence goes behind workflow.GetVersion, and every file must keep replaying.
// `RECORD_ONLY=name,name` records only those scenarios.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { mcpTasks } from '../test/support/mcp-client';
import { fromDist } from '../test/support/paths';
import { Cleanup, spawnProcess } from '../test/support/processes';
import { startServe } from '../test/support/servers';
import { startDevServerOnFreePorts, tempDbFile } from '../test/support/temporal';
import { GO_DIR, runGo } from './go-examples';
import { type Drive, SCENARIOS, type Scenario } from './go-history-scenarios';
import { closedRuns, type Run } from './history-runs';

const { TemporalTaskStore } = fromDist<typeof import('../dist/tasks')>('tasks');

const OUT = path.join(GO_DIR, 'tools', 'testdata', 'histories');
const TOOLS_FILE = path.join(GO_DIR, 'tools.json');
const CLAIM_GUARD = 'mcp-tasks.claim-guard';

type Event = { eventType: string; markerRecordedEventAttributes?: { details?: Record<string, { payloads?: Array<{ data?: string }> }> } };

/** The run has the claim guard's GetVersion marker (its change id is in the marker's details). */
const guarded = (events: Event[]) =>
  events.some((e) =>
    Object.values(e.markerRecordedEventAttributes?.details ?? {}).some((d) =>
      d.payloads?.some((p) =>
        Buffer.from(p.data ?? '', 'base64')
          .toString()
          .includes(CLAIM_GUARD),
      ),
    ),
  );
const closing = (events: Event[]) => events.at(-1)!.eventType.replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '').toLowerCase();

function args(): { helper: string; as: string } {
  const value = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const as = value('--as');
  if (!as || !/^v\d+$/.test(as)) {
    console.error(
      `usage: record-go-histories --as v<N> [--helper <examples/go dir>]\nscenarios:\n${SCENARIOS.map((s) => `  ${s.name}: ${s.about}`).join('\n')}`,
    );
    process.exit(2);
  }
  return { helper: path.resolve(value('--helper') ?? GO_DIR), as };
}

async function main(): Promise<void> {
  const { helper, as } = args();
  const cleanup = new Cleanup();
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup.run().finally(() => process.exit(130)));
  process.on('exit', () => cleanup.killLeftovers());
  try {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-go-record-'));
    cleanup.add('temp folder', undefined, () => fs.rmSync(tmp, { recursive: true, force: true }));
    const worker = path.join(tmp, 'worker');
    runGo(['build', '-o', worker, './worker'], 900_000, helper);
    const dbFile = tempDbFile('mtt-go-record-');
    const temporal = await startDevServerOnFreePorts({ dbFile });
    cleanup.add('temporal dev server', temporal.pid, async () => {
      await temporal.stop();
      fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
    });
    const goWorker = cleanup.track(
      'go worker',
      spawnProcess(worker, [], {
        cwd: helper,
        env: { TEMPORAL_ADDRESS: temporal.address, LEDGER_FILE: path.join(tmp, 'ledger.jsonl') },
        name: 'the Go worker',
      }),
    );
    await goWorker.waitFor(/go worker polling task queue go-tools/);
    const { url } = await startServe(
      temporal.address,
      ['--tools', TOOLS_FILE],
      { TEMPORAL_NAMESPACE: 'default', MCP_LOG_LEVEL: 'warn' },
      { cleanup },
    );
    const connection = await Connection.connect({ address: temporal.address });
    cleanup.add('client connection', undefined, () => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const store = new TemporalTaskStore(client, {
      taskQueue: 'go-tools',
      ttlMs: 60 * 60_000,
      temporalTimeoutMs: 10_000,
      historyLimit: 10_000,
      searchAttributes: true,
    });
    cleanup.add('task store', undefined, () => store.close());
    const drive: Drive = { mcp: mcpTasks(url, { clientName: 'record-go-histories' }), client, store };
    const recordedAt = `${new Date().toISOString().slice(0, 10)}, helper ${helperRevision(helper)}`;
    fs.mkdirSync(OUT, { recursive: true });
    const only = process.env.RECORD_ONLY?.split(',');
    for (const scenario of SCENARIOS.filter((s) => !only || only.includes(s.name))) {
      const started = Date.now();
      const workflowId = await scenario.run(drive);
      const runs = await closedRuns(client, workflowId);
      const events = runs.map((r) => JSON.parse(r.json).events as Event[]);
      const last = events.at(-1)!;
      const want = guarded(events.flat()) ? (scenario.closesGuarded ?? scenario.closes) : scenario.closes;
      if (closing(last) !== want) throw new Error(`${scenario.name}: closed ${closing(last)}, expected ${want} (workflow ${workflowId})`);
      if (runs.length < (scenario.minRuns ?? 1)) throw new Error(`${scenario.name}: ${runs.length} run(s), expected ${scenario.minRuns}`);
      write(scenario, as, workflowId, runs, recordedAt);
      console.log(
        `${scenario.name}.${as}: ${closing(last)}, ${runs.length} run(s), claim guard ${guarded(events.flat()) ? 'on' : 'off'}, ${Date.now() - started} ms`,
      );
    }
    fs.writeFileSync(path.join(OUT, 'README.md'), readme());
  } finally {
    await cleanup.run();
  }
}

/** Writes the scenario's runs for this helper (one file, or .runN files for a chain), replacing its old ones. */
function write(scenario: Scenario, as: string, workflowId: string, runs: Run[], recordedAt: string): void {
  const name = `${scenario.name}.${as}`;
  for (const stale of fs.readdirSync(OUT).filter((f) => f === `${name}.json` || (f.startsWith(`${name}.run`) && f.endsWith('.json'))))
    fs.rmSync(path.join(OUT, stale));
  runs.forEach((run, i) => {
    const file = runs.length === 1 ? `${name}.json` : `${name}.run${i + 1}.json`;
    const record = {
      scenario: scenario.about,
      tool: scenario.tool,
      helper: as,
      recordedAt,
      workflowId,
      runId: run.runId,
      run: runs.length === 1 ? undefined : `${i + 1}/${runs.length}`,
      ...JSON.parse(run.json),
    };
    fs.writeFileSync(path.join(OUT, file), JSON.stringify(record, null, 1) + '\n');
  });
}

/** The helper's commit, and whether examples/go there has uncommitted changes. */
function helperRevision(helper: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: helper, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.'], {
      cwd: helper,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${sha} plus uncommitted changes` : sha;
  } catch {
    return 'unknown (no git)';
  }
}

/** The folder's index: every history in it, recorded now or kept from before. */
function readme(): string {
  const lines = fs
    .readdirSync(OUT)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const r = JSON.parse(fs.readFileSync(path.join(OUT, file), 'utf8'));
      const events: Event[] = r.events ?? [];
      return `- \`${file}\`: ${r.scenario ?? 'a history added by hand'}${r.run ? ` (run ${r.run})` : ''}; ${events.length} events, ${closing(events)}${guarded(events) ? ', claim guard on' : ''}${r.recordedAt ? `; recorded ${r.recordedAt}` : ''}`;
    });
  return `# Recorded histories of the Go example tools

Replayed by \`../../replay_test.go\` (\`go test ./...\` in examples/go) with the SDK's
WorkflowReplayer and the workflows of \`examples/go/tools\` as the worker registers them: a change
to the mcptasks helper or a tool that alters the command sequence of a recorded run fails there
with a nondeterminism error. Such a change goes behind \`workflow.GetVersion\`, and these files
stay: they are the runs in flight when it ships. \`.v0\` is the helper before the claim guard,
\`.v1\` with it.

\`npm run record-go-histories -- --as v<N> [--helper <examples/go of a worktree>]\` records them
(see its header); a history from \`temporal workflow show --workflow-id <id> --output json\` can
be dropped in as is.

${lines.join('\n')}
`;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
