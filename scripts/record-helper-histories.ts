#!/usr/bin/env node
// Records the histories the Go and Java examples replay (examples/go/tools/replay_test.go,
// examples/java/src/test/java/mcptasks/ReplayTest.java): the language's example tools run by its
// worker built from a copy of examples/<lang> (`--helper <dir>`, default this checkout's), so the
// histories of an older helper can be recorded from a git worktree of an older commit:
//
//   git worktree add --detach /tmp/old <commit>
//   npm run record-helper-histories -- --lang go --helper /tmp/old/examples/go --as v0
//   npm run record-helper-histories -- --lang go --as v1
//   git worktree remove --force /tmp/old
//
// It builds that worker (Go: `go build`; Java: Maven, artifacts from ~/.m2), starts a Temporal
// dev server (temp SQLite, free ports), the worker and a CLI serve of the language's tools.json,
// drives each scenario of ./helper-history-scenarios over MCP (or, for the claim guard, starts the
// run as the server does for a caller without Tasks: TemporalTaskStore.start with claimWithinMs),
// waits for the workflow to close and writes every run's history to the language's histories
// folder as <scenario>.<as>[.runN].json: Temporal's proto JSON (see ./history-runs), with a few
// keys of ours before `events`, which both SDKs' JSON readers skip. `<as>` names the helper: v0
// before the claim guard, v1 with it (GetVersion / getVersion mcp-tasks.claim-guard = 1). Files of
// other scenarios and helpers are kept: they are the runs in flight when a helper change ships; a
// change to a helper's command sequence goes behind its version call, and every file must keep
// replaying. `RECORD_ONLY=name,name` records only those scenarios. A scenario with serveArgs
// talks to a serve of its own started with those flags (e.g. --answer-within-ms).
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
import { type Lang, queueOf, type Scenario, scenariosFor } from './helper-history-scenarios';
import { closedRuns, type Run } from './history-runs';
import { JAVA_DIR, JAVA_MAIN, runMaven } from './java-examples';
import { closing, type Event, guarded, helperReadme } from './helper-histories-readme';

const { TemporalTaskStore } = fromDist<typeof import('../dist/tasks')>('tasks');

/** Where a language's example lives, where its histories go, and how its worker is built and started. */
interface LangSpec {
  dir: string;
  out: string;
  /** Builds the worker of the helper at `helper` (a temp folder at hand); returns how to start it. */
  build(helper: string, tmp: string): { command: string; args: string[] };
}

const LANGS: Record<Lang, LangSpec> = {
  go: {
    dir: GO_DIR,
    out: path.join(GO_DIR, 'tools', 'testdata', 'histories'),
    build: (helper, tmp) => {
      const worker = path.join(tmp, 'worker'); // examples/go/bin stays as the tests built it
      runGo(['build', '-o', worker, './worker'], 900_000, helper);
      return { command: worker, args: [] };
    },
  },
  java: {
    dir: JAVA_DIR,
    out: path.join(JAVA_DIR, 'src', 'test', 'resources', 'histories'),
    build: (helper) => {
      runMaven(['package', '-DskipTests'], helper);
      const classpath = [path.join(helper, 'target', 'classes'), path.join(helper, 'target', 'lib', '*')].join(path.delimiter);
      return { command: 'java', args: ['-cp', classpath, JAVA_MAIN] };
    },
  },
};

function args(): { lang: Lang; helper: string; as: string } {
  const value = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const lang = value('--lang');
  const as = value('--as');
  if ((lang !== 'go' && lang !== 'java') || !as || !/^v\d+$/.test(as)) {
    const scenarios = scenariosFor('go').map((s) => `  ${s.name}: ${s.about.replace('provision_go', 'provision_<lang>')}`);
    console.error(
      `usage: record-helper-histories --lang go|java --as v<N> [--helper <examples/<lang> dir>]\nscenarios:\n${scenarios.join('\n')}`,
    );
    process.exit(2);
  }
  return { lang, helper: path.resolve(value('--helper') ?? LANGS[lang].dir), as };
}

async function main(): Promise<void> {
  const { lang, helper, as } = args();
  const spec = LANGS[lang];
  const cleanup = new Cleanup();
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanup.run().finally(() => process.exit(130)));
  process.on('exit', () => cleanup.killLeftovers());
  try {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mtt-${lang}-record-`));
    cleanup.add('temp folder', undefined, () => fs.rmSync(tmp, { recursive: true, force: true }));
    const { command, args: workerArgs } = spec.build(helper, tmp);
    const dbFile = tempDbFile(`mtt-${lang}-record-`);
    const temporal = await startDevServerOnFreePorts({ dbFile });
    cleanup.add('temporal dev server', temporal.pid, async () => {
      await temporal.stop();
      fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
    });
    const worker = cleanup.track(
      `${lang} worker`,
      spawnProcess(command, workerArgs, {
        cwd: helper,
        env: { TEMPORAL_ADDRESS: temporal.address, LEDGER_FILE: path.join(tmp, 'ledger.jsonl') },
        name: `the ${lang} worker`,
      }),
    );
    await worker.waitFor(new RegExp(`${lang} worker polling task queue ${queueOf(lang)}`), 60_000);
    const serves = new Map<string, Promise<string>>(); // a serve's extra flags -> its MCP URL
    const serveUrl = (extra: string[] = []) => {
      const key = extra.join(' ');
      if (!serves.has(key)) {
        const serveArgs = ['--tools', path.join(spec.dir, 'tools.json'), ...extra];
        const env = { TEMPORAL_NAMESPACE: 'default', MCP_LOG_LEVEL: 'warn' };
        const url = startServe(temporal.address, serveArgs, env, { cleanup }).then((s) => s.url);
        serves.set(key, url);
      }
      return serves.get(key)!;
    };
    await serveUrl();
    const connection = await Connection.connect({ address: temporal.address });
    cleanup.add('client connection', undefined, () => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const store = new TemporalTaskStore(client, {
      taskQueue: queueOf(lang),
      ttlMs: 60 * 60_000,
      temporalTimeoutMs: 10_000,
      historyLimit: 10_000,
      searchAttributes: true,
    });
    cleanup.add('task store', undefined, () => store.close());
    const recordedAt = `${new Date().toISOString().slice(0, 10)}, helper ${helperRevision(helper)}`;
    fs.mkdirSync(spec.out, { recursive: true });
    const only = process.env.RECORD_ONLY?.split(',');
    for (const scenario of scenariosFor(lang).filter((s) => !only || only.includes(s.name))) {
      const started = Date.now();
      const mcp = mcpTasks(await serveUrl(scenario.serveArgs), { clientName: 'record-helper-histories' });
      const workflowId = await scenario.run({ mcp, client, store });
      const runs = await closedRuns(client, workflowId);
      const events = runs.map((r) => JSON.parse(r.json).events as Event[]);
      const last = events.at(-1)!;
      const want = guarded(events.flat()) ? (scenario.closesGuarded ?? scenario.closes) : scenario.closes;
      if (closing(last) !== want) throw new Error(`${scenario.name}: closed ${closing(last)}, expected ${want} (workflow ${workflowId})`);
      if (runs.length < (scenario.minRuns ?? 1)) throw new Error(`${scenario.name}: ${runs.length} run(s), expected ${scenario.minRuns}`);
      write(spec.out, scenario, as, workflowId, runs, recordedAt);
      console.log(
        `${scenario.name}.${as}: ${closing(last)}, ${runs.length} run(s), claim guard ${guarded(events.flat()) ? 'on' : 'off'}, ${Date.now() - started} ms`,
      );
    }
    fs.writeFileSync(path.join(spec.out, 'README.md'), helperReadme(lang, spec.out));
  } finally {
    await cleanup.run();
  }
}

/** Writes the scenario's runs for this helper (one file, or .runN files for a chain), replacing its old ones. */
function write(out: string, scenario: Scenario, as: string, workflowId: string, runs: Run[], recordedAt: string): void {
  const name = `${scenario.name}.${as}`;
  for (const stale of fs.readdirSync(out).filter((f) => f === `${name}.json` || (f.startsWith(`${name}.run`) && f.endsWith('.json'))))
    fs.rmSync(path.join(out, stale));
  runs.forEach((run, i) => {
    const file = runs.length === 1 ? `${name}.json` : `${name}.run${i + 1}.json`;
    const record = {
      scenario: scenario.about,
      tool: scenario.tool,
      helper: as,
      recordedAt,
      workflowId, // Java's ReplayTest replays under it, as it ran
      runId: run.runId,
      run: runs.length === 1 ? undefined : `${i + 1}/${runs.length}`,
      ...JSON.parse(run.json),
    };
    fs.writeFileSync(path.join(out, file), JSON.stringify(record, null, 1) + '\n');
  });
}

/** The helper's commit, and whether its folder there has uncommitted changes. */
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

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
