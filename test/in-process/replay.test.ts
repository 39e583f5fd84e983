/**
 * Deploy safety: every committed history (test/histories, recorded by
 * scripts/record-histories.ts from real tasks) replays without a nondeterminism error on the
 * workflow code a worker runs today: the tests' tools module (demo tools and fixtures) bundled
 * with McpTasksPlugin, so the task runtime's interceptor is in the replay like in a real worker.
 * A change to the command sequence of the runtime or of a tool fails here: put it behind
 * patched() (docs/production.md, "Deploying without breaking running tasks").
 */
/* eslint-disable @typescript-eslint/no-require-imports -- compiled dist/, build/ and protobufjs' own copy load by path */
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap, Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import fs from 'node:fs';
import path from 'node:path';
import type { McpTasksPlugin as Plugin } from '../../src/worker';

const ROOT = path.resolve(__dirname, '..', '..');
const HISTORIES = path.join(ROOT, 'test', 'histories');
const TOOLS_MODULE = path.join(ROOT, 'build', 'test', 'fixtures', 'index.js');
/**
 * The plugin as a worker gets it (`mcp-temporal-tasks/worker`, compiled): its interceptor must
 * load the same runtime module as the workflows (`mcp-temporal-tasks/workflow` = dist/workflows).
 * From src/ it would bundle a second copy of the runtime beside dist's, and a continued run's
 * carried state would go to one copy while the tool's helpers read the other.
 */
const { McpTasksPlugin } = require(path.join(ROOT, 'dist', 'worker')) as { McpTasksPlugin: typeof Plugin };

/** What scripts/record-histories.ts writes; a bare history ({ events }, as the UI or `temporal workflow show -o json` give it) works too. */
interface RecordedHistory {
  scenario?: string;
  tool?: string;
  workflowId: string;
  runId?: string;
  history: { events: unknown[] };
}

const files = fs
  .readdirSync(HISTORIES)
  .filter((f) => f.endsWith('.json'))
  .sort();
function read(file: string): RecordedHistory {
  const json = JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8'));
  return json.history ? json : { workflowId: file.replace(/\.json$/, ''), history: json };
}

/**
 * Temporal's proto JSON back to a History. The SDK's historyFromJSON would do, but in this install
 * @temporalio/common and @temporalio/proto each carry a copy of protobufjs and its instanceof
 * check fails ("type must be a Type"); protojson from @temporalio/proto's own copy works.
 */
const protoJson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))] }),
);
// the module itself, not an import-* copy of it: patchProtobufRoot must see the real root
const HISTORY_TYPE = (patchProtobufRoot(require('@temporalio/proto')) as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);
const historyOf = (recorded: RecordedHistory): temporal.api.history.v1.History =>
  protoJson.fromJson(HISTORY_TYPE, recorded.history, { ignoreUnknownFields: true });

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  // a replay failure is the test's failure (DeterminismViolationError); the SDK's INFO lines are noise
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  // what a worker without a prebuilt bundle does: the tools module's workflows, with the plugin
  const { tools, workflowsPath } = require(TOOLS_MODULE);
  workflowBundle = await bundleWorkflowCode({ workflowsPath, plugins: [new McpTasksPlugin({ tools })], logger: quietLogger });
});

interface Tool {
  name: string;
  workflow?: { name: string };
  workflowType?: string;
  local?: unknown;
}
const toolsModule = require(TOOLS_MODULE) as { tools: Tool[]; workflowsPath: string };
/** The workflow types the replay bundle holds: the tools module's workflows module's exports. */
const bundled = new Set(Object.keys(require(toolsModule.workflowsPath)));
const workflowTypeOf = (tool: Tool) => tool.workflowType ?? tool.workflow?.name;
/**
 * The tools whose workflow this replay runs; the others (answered in process, or a workflow
 * type run by another worker, e.g. in Python) are out of scope here, and the test says so.
 */
// generated_program runs a program generated per case (test/generative): no fixed history to record
const GENERATED = 'generated_program';
const replayable = toolsModule.tools.filter((t) => !t.local && t.name !== GENERATED && bundled.has(workflowTypeOf(t) ?? ''));
const outOfScope = toolsModule.tools.filter((t) => !replayable.includes(t));
const whyOutOfScope = (t: Tool) =>
  t.name === GENERATED
    ? 'its programs are generated per case by the generative test'
    : t.local
      ? 'answered in process (local), no workflow'
      : `workflow type ${workflowTypeOf(t)} is not in this bundle (another worker runs it)`;

/** The tool a history is of: as recorded, or (a history dropped in as is) by its workflow type. */
function toolOf(recorded: RecordedHistory): string | undefined {
  if (recorded.tool) return recorded.tool;
  const type = (recorded.history.events[0] as { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } })
    ?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  return toolsModule.tools.find((t) => workflowTypeOf(t) === type)?.name;
}

test('every tool of the tools module whose workflow is in the bundle has a recorded history', () => {
  const covered = new Set(files.map((f) => toolOf(read(f))));
  const missing = replayable.map((t) => t.name).filter((name) => !covered.has(name));
  expect(replayable.length).toBeGreaterThan(20); // the module's tools were read
  // a new tool needs a scenario in test/histories/scenarios.yaml (then RECORD_MISSING=1 npm run record-histories)
  expect({ toolsWithoutHistory: missing }).toEqual({ toolsWithoutHistory: [] });
});

// listed as skipped in the test output, each with its reason
if (outOfScope.length) test.skip.each(outOfScope.map((t) => [t.name, whyOutOfScope(t)]))('%s is not replayed here: %s', () => undefined);

/** The runtime's paths, each by the history (or first run of the chain) that takes it. */
const RUNTIME_PATHS: Record<string, string> = {
  'timed input answered in time': 'timed_question-answered-in-time.json',
  'timed input timed out (withdrawn)': 'timed_question-timed-out.json',
  'loop() chain, every run': 'chatty_job-loop-chain.run2.json',
  'a saga over loop(): undos carried by continue-as-new': 'saga_job-loop-chain-completed.run2.json',
  'compensation with a failing undo, every undo attempted': 'saga_job-undo-fails.run1.json',
  'cancel in the last step': 'provision_environment-cancelled-in-last-step.json',
  'cancel mid-step': 'provision_environment-cancelled-mid-step.json',
  'cancel after the saga body returned': 'saga_job-cancelled-after-body.run1.json',
  'cancel honoured at completion (late-cancel patch)': 'saga_job-cancel-before-completion.run1.json',
  'continue-as-new with a pending input': 'collect_approvals-continued-as-new.run2.json',
  'an answer to a key never asked': 'approve_expense-unknown-key-ignored.json',
  'two questions answered one at a time': 'multi_input-partial-answers.json',
  'a result over the payload limit': 'export_report-oversized.json',
  'export_report built in an activity (demo.export-report-in-activity patch)': 'export_report-activity-small.json',
  'an oversized report from the activity fails the task (after the patch)': 'export_report-activity-oversized.json',
  'a cancel while the export activity reports progress': 'export_report-activity-cancelled.json',
  'a cancel during a heartbeating() step, then its undo': 'keyed_job-cancelled-in-activity.json',
  'protocolError()': 'protocol_error_job-failed.json',
  'a bug in a tool (before the bugs-retry patch)': 'broken_job-failed.json',
  'the input round before the task': 'test_tool_with_task-completed.json',
  'a tool called without a task': 'greet-sync.json',
};

test('the recorded histories cover the runtime paths', () => {
  const missing = Object.entries(RUNTIME_PATHS)
    .filter(([, file]) => !files.includes(file))
    .map(([path, file]) => `${path} (${file})`);
  expect({ runtimePathsWithoutHistory: missing }).toEqual({ runtimePathsWithoutHistory: [] });
});

test.each(files)('%s replays without nondeterminism', async (file) => {
  const recorded = read(file);
  await Worker.runReplayHistory({ workflowBundle, replayName: file }, historyOf(recorded), recorded.workflowId);
});

/** A history as if its task had been started for `runtime` (TaskMemo.runtime in its start memo). */
function startedForRevision(recorded: RecordedHistory, runtime: number): RecordedHistory {
  const copy = structuredClone(recorded) as RecordedHistory & { history: { events: Array<Record<string, any>> } };
  const field = copy.history.events[0].workflowExecutionStartedEventAttributes.memo.fields.mcpTask;
  field.data = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(field.data, 'base64').toString()), runtime })).toString('base64');
  return copy;
}

const runtimeMarkers = (recorded: RecordedHistory) =>
  (recorded.history.events as Array<Record<string, any>>)
    .filter((e) => e.markerRecordedEventAttributes)
    .map((e) => Buffer.from(e.markerRecordedEventAttributes.details['patch-data']?.payloads?.[0]?.data ?? '', 'base64').toString())
    .filter((patch) => patch.includes('mcp-tasks.'));

describe('task runtime revision 2 (TaskMemo.runtime)', () => {
  const revision2 = files.filter((f) => /\.rev2\./.test(f));

  test('its histories cover the common paths and carry no runtime patch marker', () => {
    expect(revision2.length).toBeGreaterThanOrEqual(20);
    expect(revision2.filter((f) => runtimeMarkers(read(f)).length > 0)).toEqual([]);
    // and the same scenarios recorded before revision 2 did carry them: the check can fail
    expect(runtimeMarkers(read('keyed_job-cancelled-in-activity.json'))).toEqual([
      expect.stringContaining('mcp-tasks.flush-per-activation'),
    ]);
  });

  test('a task of revision 2 that a worker of the build before ran (its patch markers in the history) replays', async () => {
    for (const file of ['keyed_job-cancelled-in-activity.json', 'ask_model-answered.json', 'saga_job-cancel-before-completion.run2.json']) {
      const recorded = startedForRevision(read(file), 2);
      await Worker.runReplayHistory({ workflowBundle, replayName: `${file} as revision 2` }, historyOf(recorded), recorded.workflowId);
    }
  });

  test('a revision-2 history is not what the build before would replay: the revision decides', async () => {
    const recorded = startedForRevision(read('collect_approvals-continued-as-new.rev2.run1.json'), 0);
    await expect(
      Worker.runReplayHistory({ workflowBundle, replayName: 'revision 2 as revision 0' }, historyOf(recorded), recorded.workflowId),
    ).rejects.toThrow(/[Nn]ondetermin/);
  });
});

test('the histories of revision 3 (the end decided once, one input deadline) carry no runtime patch marker', () => {
  const revision3 = files.filter((f) => /\.rev3\./.test(f));
  expect(revision3.length).toBeGreaterThanOrEqual(20);
  expect(revision3.filter((f) => runtimeMarkers(read(f)).length > 0)).toEqual([]);
});

describe('the next runtime patch (each patch names the revision it arrived in)', () => {
  const { PATCHES } = require('../../src/workflows/patches') as typeof import('../../src/workflows/patches');
  const { TASK_RUNTIME_REVISION } = require('../../src/contract') as typeof import('../../src/contract');
  const revision2 = files.filter((f) => /\.rev2\./.test(f));

  /** The replay bundle plus a made-up patch of `revision` whose new path adds a timer at the start. */
  const bundleWithProbe = (revision: number) =>
    bundleWorkflowCode({
      workflowsPath: toolsModule.workflowsPath,
      plugins: [new McpTasksPlugin({ tools: toolsModule.tools as never })],
      workflowInterceptorModules: [path.join(__dirname, 'replay-patch-probe.ts')],
      webpackConfigHook: (config) => ({
        ...config,
        plugins: [...(config.plugins ?? []), new (require('webpack').DefinePlugin)({ PROBE_PATCH_REVISION: String(revision) })],
      }),
      logger: quietLogger,
    });
  const replays = async (bundle: WorkflowBundleWithSourceMap, file: string) => {
    const recorded = read(file);
    return Worker.runReplayHistory({ workflowBundle: bundle, replayName: file }, historyOf(recorded), recorded.workflowId).then(
      () => true,
      () => false,
    );
  };

  test('every patch arrived in a revision a server can set', () => {
    for (const patch of Object.values(PATCHES)) expect(patch.revision).toBeLessThanOrEqual(TASK_RUNTIME_REVISION);
    expect(new Set(Object.values(PATCHES).map((p) => p.id)).size).toBe(Object.keys(PATCHES).length);
  });

  test('added at revision 2 (the old shortcut: no marker for every task of revision 2) it breaks their replay', async () => {
    const bundle = await bundleWithProbe(2);
    const broken: string[] = [];
    for (const file of revision2) if (!(await replays(bundle, file))) broken.push(file);
    expect(broken.length).toBeGreaterThan(revision2.length / 3);
  });

  test('added at the next revision, every recorded history of an older revision replays (its new path is taken only by newer tasks)', async () => {
    const next = TASK_RUNTIME_REVISION + 1;
    const bundle = await bundleWithProbe(next);
    const broken: string[] = [];
    for (const file of files) if (!(await replays(bundle, file))) broken.push(file);
    expect(broken).toEqual([]);
    // a task started for that revision takes it without a marker, so a history of today's revision is no longer what it replays
    const recorded = startedForRevision(read('approve_expense-approved.rev2.json'), next);
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'as the next revision' }, historyOf(recorded), recorded.workflowId),
    ).rejects.toThrow(/[Nn]ondetermin/);
  });
});

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
