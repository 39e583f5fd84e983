#!/usr/bin/env node
// Records the workflow histories that test/replay.test.ts replays (`node scripts/record-histories.js`,
// after a build). It starts a real Temporal dev server (temp SQLite, free ports), a CLI worker and
// a CLI serve with the tests' tools module (demo tools + fixtures), drives each scenario through
// MCP JSON-RPC over HTTP, waits for each workflow to close and writes every run's history to
// test/histories/<name>.json as { scenario, tool, workflowId, runId, history } where `history` is
// Temporal's proto JSON (what the Temporal UI and `temporal workflow show -o json` give, and what
// the SDK's historyToJSON writes). historyToJSON itself is not used: in this install
// @temporalio/common and @temporalio/proto each carry their own copy of protobufjs 8, so its
// `instanceof Type` check fails ("type must be a Type"); the same protojson from the copy that
// @temporalio/proto uses works, whichever way npm lays the copies out.
//
// `RECORD_MISSING=1 node scripts/record-histories.js` records only the scenarios that have no file yet;
// `RECORD_ONLY=name,name` only those; `RECORD_OUT=dir` writes elsewhere (a trial run); `--help` lists the scenarios.
// Re-record only for a change that no running task can see (e.g. before the first release of a
// runtime change). A change to a shipped command sequence goes behind patched() instead, and the
// old histories must keep replaying: see docs/production.md, "Deploying without breaking running tasks".
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client, Connection } = require('@temporalio/client');
const proto = require('@temporalio/proto');
const { patchProtobufRoot } = require('@temporalio/proto/lib/patch-protobuf-root');

const ROOT = path.resolve(__dirname, '..');
const { Cleanup, isTerminal, mcpTasks, sleep, startProcessStack, TEST_TOOLS } = require('./support');

const OUT = process.env.RECORD_OUT ? path.resolve(process.env.RECORD_OUT) : path.join(ROOT, 'test', 'histories');
/** Small enough that collect_approvals continues as new between approvers (the server's minimum is 10). */
const HISTORY_LIMIT = 10;

const { inputResponsesSignal, TASK_RUNTIME_REVISION } = require(path.join(ROOT, 'dist/contract'));
/**
 * A recording is of the task runtime revision the server starts tasks for: from revision 2 on,
 * its files are named `<scenario>.rev<N>.json`, so the histories of tasks started before (no
 * revision in their memo, patch markers) stay beside them and keep replaying.
 */
const REVISION = TASK_RUNTIME_REVISION >= 2 ? `.rev${TASK_RUNTIME_REVISION}` : '';

const accept = (content) => ({ action: 'accept', content });

/** Each scenario drives one task to its end; `expect` checks the final task so a recording is what it says. */
const SCENARIOS = [
  {
    name: 'wait_and_echo-completed',
    about: 'wait_and_echo: status message, a durable timer, completed',
    tool: 'wait_and_echo',
    args: { text: 'hello', seconds: 1 },
    expect: (t) => t.status === 'completed',
  },
  {
    name: 'approve_expense-approved',
    about: 'approve_expense: a form elicitation answered accept/approved, completed',
    tool: 'approve_expense',
    args: { amount: 42.5, description: 'books' },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { approval: accept({ approved: true, comment: 'fine' }) });
    },
    expect: (t) => t.status === 'completed' && /was approved/.test(t.result.content[0].text),
  },
  {
    name: 'approve_expense-declined',
    about: 'approve_expense: the elicitation declined, completed with isError',
    tool: 'approve_expense',
    args: { amount: 9000, description: 'a boat' },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { approval: { action: 'decline' } });
    },
    expect: (t) => t.status === 'completed' && t.result.isError === true,
  },
  {
    name: 'approve_expense-unknown-key-ignored',
    about: 'runtime: an answer to a key never asked (sent straight to Temporal, past the server) is ignored; then the real answer',
    tool: 'approve_expense',
    args: { amount: 7, description: 'coffee' },
    async drive(mcp, taskId, client) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      // the server drops keys not outstanding; a raw signal reaches the runtime's own check
      await client.workflow.getHandle(taskId).signal(inputResponsesSignal, { 'never-asked': accept({ approved: true }) });
      await sleep(500);
      const still = await mcp.getTask(taskId);
      if (still.status !== 'input_required') throw new Error(`unknown key changed the task: ${still.status}`);
      await mcp.updateTask(taskId, { approval: accept({ approved: true }) });
    },
    expect: (t) => t.status === 'completed' && /was approved/.test(t.result.content[0].text),
  },
  {
    name: 'provision_environment-completed',
    about: 'provision_environment: every step activity, completed',
    tool: 'provision_environment',
    args: { name: 'prod', steps: 3, stepMs: 100 },
    expect: (t) => t.status === 'completed',
  },
  {
    name: 'provision_environment-cancelled-mid-step',
    about: 'provision_environment: cancelled while step 2 runs; the step in flight settles, then steps 2 and 1 are undone',
    tool: 'provision_environment',
    args: { name: 'staging', steps: 3, stepMs: 3000 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /step 2\/3/.test(t.statusMessage ?? ''));
      await sleep(700);
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
    check: (events) => {
      const undone = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deprovisionStep').length;
      if (undone !== 2) throw new Error(`expected 2 deprovisionStep activities, got ${undone}`);
    },
  },
  {
    name: 'collect_approvals-continued-as-new',
    about: `collect_approvals with a ${HISTORY_LIMIT}-event history limit: continues as new while a question is pending; every run of the chain`,
    tool: 'collect_approvals',
    args: { approvers: ['ann', 'bob', 'cy', 'dee', 'eve'] },
    async drive(mcp, taskId) {
      for (let i = 0; i < 5; i++) {
        await mcp.waitForTask(taskId, (t) => t.status === 'input_required' && `approval-${i}` in (t.inputRequests ?? {}));
        await sleep(300); // let the run reach continueAsNewIfNeeded with the question pending
        await mcp.updateTask(taskId, { [`approval-${i}`]: accept({ approved: true }) });
      }
    },
    expect: (t) => t.status === 'completed' && /Approved by all 5/.test(t.result.content[0].text),
    minRuns: 3, // a run that started from a carry continues again
  },
  {
    name: 'export_report-small',
    about: 'export_report: a small CSV result, completed',
    tool: 'export_report',
    args: { rows: 20 },
    expect: (t) => t.status === 'completed',
  },
  {
    name: 'export_report-oversized',
    about: 'runtime: a result over the payload limit fails the task with a typed protocol error',
    tool: 'export_report',
    args: { rows: 100_000 },
    expect: (t) => t.status === 'failed',
  },
  {
    name: 'export_report-activity-small',
    about: 'export_report after the demo.export-report-in-activity patch: the CSV built by the buildReport activity, completed',
    tool: 'export_report',
    args: { rows: 2500 },
    expect: (t) => t.status === 'completed' && t.result.content[0].text.startsWith('id,name,amount\n1,item-1,7.00'),
  },
  {
    name: 'export_report-activity-oversized',
    about: 'export_report after the patch: a report over the payload limit comes back as its size and fails the task with the typed error',
    tool: 'export_report',
    args: { rows: 100_000 },
    expect: (t) => t.status === 'failed' && /over the 1500000-byte limit/.test(t.error?.message ?? ''),
  },
  {
    name: 'export_report-activity-cancelled',
    about: 'export_report after the patch: cancelled while buildReport runs (its progress read first), ends cancelled',
    tool: 'export_report',
    args: { rows: 50_000, msPerChunk: 200 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /^exporting rows \([\d,]+ of 50,000\)$/.test(t.statusMessage ?? ''));
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
  },
  {
    name: 'keyed_job-cancelled-in-activity',
    about: 'keyed_job: cancelled while its heartbeating() step runs; the step ends cancelled, then its undo runs',
    tool: 'keyed_job',
    args: { ms: 60_000 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /^waiting for the confirmation/.test(t.statusMessage ?? ''));
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
  },
  {
    name: 'multi_input-partial-answers',
    about: 'runtime: two questions at once, answered one at a time (partial answer keeps it input_required)',
    tool: 'multi_input',
    args: {},
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => Object.keys(t.inputRequests ?? {}).length === 2);
      await mcp.updateTask(taskId, { first: accept({ name: 'a' }) });
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required' && Object.keys(t.inputRequests ?? {}).join() === 'second');
      await mcp.updateTask(taskId, { second: accept({ name: 'b' }) });
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'Received 2 inputs',
  },
  {
    name: 'protocol_error_job-failed',
    about: 'runtime: protocolError() ends the task failed with a JSON-RPC error',
    tool: 'protocol_error_job',
    args: {},
    expect: (t) => t.status === 'failed',
  },
  {
    name: 'broken_job-failed',
    about: "runtime: a TypeError in the tool's code fails the workflow (not a retried workflow task)",
    tool: 'broken_job',
    args: {},
    expect: (t) => t.status === 'failed',
  },
  {
    name: 'test_tool_with_task-completed',
    about: 'test_tool_with_task: the input round before the task exists, then a timer, completed',
    tool: 'test_tool_with_task',
    args: {},
    async create(mcp) {
      const first = await mcp.rpc('tools/call', { name: 'test_tool_with_task', arguments: {} });
      if (first.resultType !== 'input_required') throw new Error(`expected input_required, got ${first.resultType}`);
      return mcp.rpc('tools/call', { name: 'test_tool_with_task', arguments: {}, inputResponses: { user_name: accept({ name: 'Ann' }) } });
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'Hello, Ann!',
  },

  // ---- every tool of the tests' tools module: the ones run synchronously (taskMode 'never') ----
  ...[
    ['test_simple_text', {}],
    ['test_image_content', {}],
    ['test_audio_content', {}],
    ['test_embedded_resource', {}],
    ['test_multiple_content_types', {}],
    ['test_error_handling', {}, (r) => r.isError === true],
    ['json_schema_2020_12_tool', { name: 'Ann', contactMethod: 'email', email: 'ann@example.com' }],
    ['greet', { name: 'Ann' }, (r) => r.content[0].text === 'Hello, Ann!'],
  ].map(([tool, args, ok = () => true]) => ({
    name: `${tool}-sync`,
    about: `${tool}: called without a task (taskMode never): the same durable workflow, awaited by tools/call`,
    tool,
    args,
    sync: true,
    expect: (r) => r.resultType === 'complete' && ok(r),
  })),
  {
    name: 'slow_compute-completed',
    about: 'slow_compute: status message, a durable timer, completed',
    tool: 'slow_compute',
    args: { seconds: 1, label: 'pi' },
    expect: (t) => t.status === 'completed',
  },
  {
    name: 'slow_compute-cancelled',
    about: 'slow_compute: cancelled during its timer (nothing to undo), cancelled',
    tool: 'slow_compute',
    args: { seconds: 60 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /computing/.test(t.statusMessage ?? ''));
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
  },
  {
    name: 'failing_job-tool-error',
    about: 'failing_job: a timer, then a tool error (isError), completed',
    tool: 'failing_job',
    args: {},
    expect: (t) => t.status === 'completed' && t.result.isError === true,
  },
  {
    name: 'confirm_delete-confirmed',
    about: 'confirm_delete: one elicitation answered accept, completed',
    tool: 'confirm_delete',
    args: { filename: 'a.txt' },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { confirm: accept({ confirm: true }) });
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'Deleted a.txt',
  },
  {
    name: 'ask_model-answered',
    about: 'ask_model: one sampling request answered through tasks/update, completed',
    tool: 'ask_model',
    args: { question: 'Two plus two?' },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { answer: { role: 'assistant', content: { type: 'text', text: 'Four.' }, model: 'test-model' } });
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'The model said: Four.',
  },
  {
    name: 'send_invoice-sent',
    about: 'send_invoice: confirmed, the invoice sent (a saga step), the wait for payment, completed',
    tool: 'send_invoice',
    args: { customer: 'ACME', amount: 120 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { confirm: accept({ confirm: true }) });
    },
    expect: (t) => t.status === 'completed' && /^Invoice INV-\S+ sent to ACME/.test(t.result.content[0].text),
  },
  {
    name: 'send_invoice-declined',
    about: 'send_invoice: the confirmation declined, nothing sent, completed with isError',
    tool: 'send_invoice',
    args: { customer: 'ACME', amount: 7 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { confirm: { action: 'decline' } });
    },
    expect: (t) => t.status === 'completed' && t.result.isError === true,
  },
  {
    name: 'send_invoice-cancelled-while-sending',
    about: 'send_invoice: cancelled while the invoice is being sent; the send settles, then the invoice is voided',
    tool: 'send_invoice',
    args: { customer: 'ACME', amount: 99 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { confirm: accept({ confirm: true }) });
      await mcp.waitForTask(taskId, (t) => t.statusMessage === 'sending');
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
    check: (events) => expectActivities(events, 'voidInvoice', 1),
  },
  // ---- runtime paths ----
  {
    name: 'timed_question-answered-in-time',
    about: 'runtime: a timed input (condition with a timeout) answered before its timeout, completed',
    tool: 'timed_question',
    args: { seconds: 60 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
      await mcp.updateTask(taskId, { question: accept({ ok: true }) });
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'answered',
  },
  {
    name: 'timed_question-timed-out',
    about: 'runtime: a timed input left unanswered: withdrawn at its timeout, read as cancel, completed',
    tool: 'timed_question',
    args: { seconds: 1 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.status === 'input_required');
    },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'no answer: cancel',
  },
  {
    name: 'chatty_job-loop-chain',
    about: `runtime: loop() turns continuing as new past the ${HISTORY_LIMIT}-event limit, the state in args.resume; every run of the chain`,
    tool: 'chatty_job',
    args: { messages: 350 },
    expect: (t) => t.status === 'completed' && t.result.content[0].text === 'sent 350 messages',
    minRuns: 3,
  },
  {
    name: 'saga_job-loop-chain-completed',
    about: 'runtime: a saga over loop(): each turn one step, its undo (undoActivity) carried by continue-as-new; completed, nothing undone; every run',
    tool: 'saga_job',
    args: { steps: 3 },
    expect: (t) => t.status === 'completed',
    minRuns: 2,
    check: (events) => expectActivities(events, 'sagaUndo', 0),
  },
  {
    name: 'saga_job-undo-fails',
    about: 'runtime: cancelled in step 3 of a saga whose undos travelled with continue-as-new; the undo of step 2 fails, every undo is still attempted, the task ends failed naming it; every run',
    tool: 'saga_job',
    args: { steps: 3, stepMs: 3000, failUndo: [2] },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => t.statusMessage === 'step 3/3');
      await sleep(700);
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'failed' && /the undo of step 2 failed/.test(JSON.stringify(t.error ?? t)),
    minRuns: 2,
    check: (events) => expectActivities(events, 'sagaUndo', 3),
  },
  {
    name: 'saga_job-cancelled-after-body',
    about: 'runtime: cancelled after the saga body returned (its steps stay registered): every step undone, cancelled; every run',
    tool: 'saga_job',
    args: { steps: 2, afterMs: 60_000 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /all 2 steps done/.test(t.statusMessage ?? ''));
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
    check: (events) => expectActivities(events, 'sagaUndo', 2),
  },
  {
    name: 'saga_job-cancel-before-completion',
    about: 'runtime (late-cancel patch): a cancel during a shielded wait after the saga; the tool then returns, but the cancel came before the completion: undone, cancelled; every run',
    tool: 'saga_job',
    args: { steps: 2, afterMs: 3000, afterShielded: true },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /all 2 steps done/.test(t.statusMessage ?? ''));
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
    check: (events) => {
      expectActivities(events, 'sagaUndo', 2);
      if (!REVISION) expectMarker(events, 'mcp-tasks.late-cancel-honoured'); // from revision 2 on, no marker
    },
  },
  {
    name: 'provision_environment-cancelled-in-last-step',
    about: 'provision_environment: cancelled while its last (only) step runs; the step settles, then it is undone, cancelled',
    tool: 'provision_environment',
    args: { name: 'qa', steps: 1, stepMs: 3000 },
    async drive(mcp, taskId) {
      await mcp.waitForTask(taskId, (t) => /step 1\/1/.test(t.statusMessage ?? ''));
      await sleep(700);
      await mcp.cancelTask(taskId);
    },
    expect: (t) => t.status === 'cancelled',
    check: (events) => expectActivities(events, 'deprovisionStep', 1),
  },
];

function expectActivities(events, type, count) {
  const n = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length;
  if (n !== count) throw new Error(`expected ${count} ${type} activities, got ${n}`);
}

/** A patched() marker: its details' payloads (base64 JSON) name the patch. */
function expectMarker(events, patchId) {
  const decoded = (v) => (v && typeof v === 'object' ? Object.entries(v).map(([k, x]) => (k === 'data' && typeof x === 'string' ? Buffer.from(x, 'base64').toString() : decoded(x))).join(' ') : '');
  const found = events.some((e) => e.markerRecordedEventAttributes && decoded(e.markerRecordedEventAttributes).includes(patchId));
  if (!found) throw new Error(`no patch marker ${patchId} in the history`);
}

async function main() {
  if (process.argv.includes('--help')) {
    console.log(`node scripts/record-histories.js (after a build): records into ${path.relative(ROOT, OUT)}\n  RECORD_ONLY=name,name  RECORD_MISSING=1  RECORD_OUT=dir\nscenarios:\n${SCENARIOS.map((s) => `  ${s.name}: ${s.about}`).join('\n')}`);
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
    const url = stack.url;
    const mcp = mcpTasks(url, { clientName: 'record-histories' });
    const head = gitHead();

    fs.mkdirSync(OUT, { recursive: true });
    let written = 0;
    // RECORD_ONLY=name,name records only those scenarios; RECORD_MISSING=1 only those with no file yet
    // (committed histories are the tasks already running: add files, do not re-record them)
    const only = process.env.RECORD_ONLY?.split(',');
    const recorded = (s) => fs.readdirSync(OUT).some((f) => f === `${s.name}${REVISION}.json` || f.startsWith(`${s.name}${REVISION}.run1.`));
    const missingOnly = process.env.RECORD_MISSING === '1';
    for (const scenario of SCENARIOS.filter((s) => (!only || only.includes(s.name)) && (!missingOnly || !recorded(s)))) {
      const started = Date.now();
      if (scenario.sync) {
        // no task: the server ran the workflow and answered; find that workflow by its type
        const before = new Set(await workflowIdsOfType(client, scenario.tool));
        const result = await mcp.rpc('tools/call', { name: scenario.tool, arguments: scenario.args });
        if (!scenario.expect(result)) throw new Error(`${scenario.name}: unexpected result ${JSON.stringify(result).slice(0, 500)}`);
        let ids = [];
        for (let i = 0; i < 100 && ids.length === 0; i++, await sleep(100)) ids = (await workflowIdsOfType(client, scenario.tool)).filter((id) => !before.has(id));
        if (ids.length !== 1) throw new Error(`${scenario.name}: expected one new ${scenario.tool} workflow, found ${ids.length}`);
        written += writeRuns(scenario, ids[0], await closedRuns(client, ids[0]), head);
        console.log(`${scenario.name}: ${result.resultType}, ${Date.now() - started} ms`);
        continue;
      }
      const created = scenario.create
        ? await scenario.create(mcp)
        : await mcp.rpc('tools/call', { name: scenario.tool, arguments: scenario.args });
      if (created.resultType !== 'task' || !created.taskId) throw new Error(`${scenario.name}: no task created: ${JSON.stringify(created)}`);
      const taskId = created.taskId;
      if (scenario.drive) await scenario.drive(mcp, taskId, client);
      const final = await mcp.waitForTask(taskId, isTerminal, 60_000).catch(async (err) => {
        const runs = await allRuns(client, taskId);
        const dump = path.join(os.tmpdir(), `${scenario.name}-${Date.now()}.json`);
        fs.writeFileSync(dump, JSON.stringify(runs.map((r) => JSON.parse(r.json)), null, 1));
        throw new Error(`${scenario.name}: ${err.message}; its runs' histories so far: ${dump}`);
      });
      if (!scenario.expect(final)) throw new Error(`${scenario.name}: unexpected final task ${JSON.stringify(final).slice(0, 500)}`);
      const runs = await closedRuns(client, taskId);
      if (runs.length < (scenario.minRuns ?? 1)) throw new Error(`${scenario.name}: ${runs.length} run(s), expected at least ${scenario.minRuns}`);
      scenario.check?.(runs.flatMap((r) => JSON.parse(r.json).events));
      written += writeRuns(scenario, taskId, runs, head);
      console.log(`${scenario.name}: ${final.status}, ${runs.length} run(s), ${Date.now() - started} ms`);
    }
    fs.writeFileSync(path.join(OUT, 'README.md'), readme());
    console.log(`wrote ${written} histories to ${path.relative(ROOT, OUT)}`);
  } finally {
    await cleanup.run();
  }
}

/** Writes the scenario's runs (one file, or .runN files for a chain); its old files are replaced, every other file kept. */
function writeRuns(scenario, workflowId, runs, head) {
  const name = `${scenario.name}${REVISION}`;
  for (const stale of fs.readdirSync(OUT).filter((f) => f === `${name}.json` || (f.startsWith(`${name}.run`) && f.endsWith('.json')))) fs.rmSync(path.join(OUT, stale));
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
async function workflowIdsOfType(client, workflowType) {
  const ids = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = '${workflowType}'` })) ids.push(wf.workflowId);
  return ids;
}

/**
 * Every run of the task's workflow, oldest first, once closed: the latest run, then back along
 * continuedExecutionRunId (continue-as-new keeps the workflow id = taskId).
 */
async function closedRuns(client, workflowId) {
  await client.workflow.getHandle(workflowId).result().catch(() => undefined); // closed, however it ended
  return allRuns(client, workflowId);
}

async function allRuns(client, workflowId) {
  const runs = [];
  let runId = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift({ runId, json: JSON.stringify(protoJson.toJson(HISTORY_TYPE, proto.temporal.api.history.v1.History.fromObject(history))) });
    runId = history.events[0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

/** The folder's index: every history in it, recorded now or kept from before. */
function readme() {
  const lines = fs.readdirSync(OUT).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const record = JSON.parse(fs.readFileSync(path.join(OUT, file), 'utf8'));
    const events = record.history?.events ?? record.events ?? [];
    const closed = events.length ? events[events.length - 1].eventType.replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '').toLowerCase() : '?';
    return `- \`${file}\`: ${record.scenario ?? 'a history added by hand'}${record.run ? ` (run ${record.run})` : ''}; ${events.length} events, ${closed}${record.recordedAt ? `; recorded at ${record.recordedAt}` : ''}`;
  });
  return `# Recorded task histories

Replayed by \`test/replay.test.ts\` with the SDK's replayer and the worker's own workflow code and
interceptors (McpTasksPlugin): a change that alters the command sequence of a shipped workflow
(the task runtime's or a tool's) fails there with a nondeterminism error. Such a change goes
behind \`patched()\`, and these files stay: they are the tasks already running when it ships.
See docs/production.md, "Deploying without breaking running tasks".

\`node scripts/record-histories.js\` (after a build) records the scenarios below against a real dev
server, a CLI worker and a CLI serve (history limit ${HISTORY_LIMIT}), driven over MCP; it replaces the
files of the scenarios it records and keeps every other file. A history downloaded from the
Temporal UI or \`temporal workflow show --workflow-id <taskId> --output json\` can be dropped in as is.

${lines.join('\n')}
`;
}

function gitHead() {
  try {
    const { execFileSync } = require('node:child_process');
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src/workflows', 'src/contract.ts', 'examples', 'test/fixtures'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${sha} (plus uncommitted changes to workflow code)` : sha;
  } catch {
    return 'unknown (no git)';
  }
}

/** protobufjs's protojson from the copy @temporalio/proto uses, and the History type of that copy. */
const protoJson = require(require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))] }));
const HISTORY_TYPE = patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History');

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
