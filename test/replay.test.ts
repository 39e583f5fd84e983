/**
 * Deploy safety: every committed history (test/histories, recorded by
 * scripts/record-histories.js from real tasks) replays without a nondeterminism error on the
 * workflow code a worker runs today: the tests' tools module (demo tools and fixtures) bundled
 * with McpTasksPlugin, so the task runtime's interceptor is in the replay like in a real worker.
 * A change to the command sequence of the runtime or of a tool fails here: put it behind
 * patched() (docs/production.md, "Deploying without breaking running tasks").
 */
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap, Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import fs from 'node:fs';
import path from 'node:path';
import type { McpTasksPlugin as Plugin } from '../src/worker';

const ROOT = path.resolve(__dirname, '..');
const HISTORIES = path.join(__dirname, 'histories');
const TOOLS_MODULE = path.join(ROOT, 'build', 'test', 'fixtures', 'index.js');
/**
 * The plugin as a worker gets it (`mcp-temporal-tasks/worker`, compiled): its interceptor must
 * load the same runtime module as the workflows (`mcp-temporal-tasks/workflow` = dist/workflows).
 * From src/ it would bundle a second copy of the runtime beside dist's, and a continued run's
 * carried state would go to one copy while the tool's helpers read the other.
 */
const { McpTasksPlugin } = require(path.join(ROOT, 'dist', 'worker')) as { McpTasksPlugin: typeof Plugin };

/** What scripts/record-histories.js writes; a bare history ({ events }, as the UI or `temporal workflow show -o json` give it) works too. */
interface RecordedHistory {
  scenario?: string;
  tool?: string;
  workflowId: string;
  runId?: string;
  history: { events: unknown[] };
}

const files = fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json')).sort();
function read(file: string): RecordedHistory {
  const json = JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8'));
  return json.history ? json : { workflowId: file.replace(/\.json$/, ''), history: json };
}

/**
 * Temporal's proto JSON back to a History. The SDK's historyFromJSON would do, but in this install
 * @temporalio/common and @temporalio/proto each carry a copy of protobufjs and its instanceof
 * check fails ("type must be a Type"); protojson from @temporalio/proto's own copy works.
 */
const protoJson = require(require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))] }));
// the module itself, not an import-* copy of it: patchProtobufRoot must see the real root
const HISTORY_TYPE = (patchProtobufRoot(require('@temporalio/proto')) as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');
const historyOf = (recorded: RecordedHistory): temporal.api.history.v1.History => protoJson.fromJson(HISTORY_TYPE, recorded.history, { ignoreUnknownFields: true });

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  // a replay failure is the test's failure (DeterminismViolationError); the SDK's INFO lines are noise
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  // what a worker without a prebuilt bundle does: the tools module's workflows, with the plugin
  const { tools, workflowsPath } = require(TOOLS_MODULE);
  workflowBundle = await bundleWorkflowCode({ workflowsPath, plugins: [new McpTasksPlugin({ tools })], logger: quietLogger });
});

test('the recorded histories cover every demo tool and the runtime paths', () => {
  const tools = new Set(files.map((f) => read(f).tool));
  for (const tool of ['wait_and_echo', 'approve_expense', 'provision_environment', 'collect_approvals', 'export_report', 'multi_input', 'protocol_error_job', 'broken_job', 'test_tool_with_task']) {
    expect(tools).toContain(tool);
  }
  const names = files.join('\n');
  expect(names).toMatch(/provision_environment-cancelled-mid-step/);
  expect(names).toMatch(/collect_approvals-continued-as-new\.run2/); // a continue-as-new chain: every run
  expect(names).toMatch(/approve_expense-unknown-key-ignored/);
});

test.each(files)('%s replays without nondeterminism', async (file) => {
  const recorded = read(file);
  await Worker.runReplayHistory({ workflowBundle, replayName: file }, historyOf(recorded), recorded.workflowId);
});

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
