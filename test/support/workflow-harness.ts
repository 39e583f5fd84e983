/**
 * The workflow tests' harness (test/in-process/workflow): one Temporal dev server per test file
 * (startTestTemporal, with McpTool/McpTaskStatus/McpOwner registered), one worker with McpTasksPlugin
 * bundling the harness's workflows from source, and a TemporalTaskStore over the environment's client, so a
 * test starts, reads, answers and cancels tasks exactly as tasks/* do.
 *
 * Everything runs from src/: the package's entry points ('mcp-temporal-tasks',
 * 'mcp-temporal-tasks/workflow') are pointed at src/ both in Jest and in the workflow bundle, so
 * no build (dist/) is needed and the code under test is the code in the tree.
 */
import { Context } from '@temporalio/activity';
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { type TaskStoreOptions, TemporalTaskStore } from '../../src/tasks';
import type { TaskSnapshot } from '../../src/tasks/task-snapshot';
import type { ToolDefinition } from '../../src/tool-definition';
import { McpTasksPlugin } from '../../src/worker';
import * as z from 'zod';
import type { SagaActivities } from '../fixtures/workflow/workflows';
import { installRuntime, sourceWorkflowEntry } from './in-process';
import { startTestTemporal, type TestTemporal } from './temporal';

// The examples and fixtures import the package by name; here that name is the source tree
// (virtual: no dist/ needed, and a stale one is never picked up).
jest.mock('mcp-temporal-tasks', () => jest.requireActual('../../src/index'), { virtual: true });
jest.mock('mcp-temporal-tasks/workflow', () => jest.requireActual('../../src/workflows/index'), { virtual: true });
jest.mock('mcp-temporal-tasks/activity', () => jest.requireActual('../../src/activities/index'), { virtual: true });

/** The test workflows: the demo's, the conformance fixtures' and the fast tier's own. */
export const WORKFLOWS_PATH = require.resolve('../fixtures/workflow/workflows');

// Imported after the mocks above (jest.mock is hoisted over this module's imports only).
export * as demo from '../../examples/demo/tools';
export * as workflows from '../fixtures/workflow/workflows';

/** A tool over one of the test workflows (the fixtures have no schema worth checking here). */
export function testTool(name: string, workflow: (args: never) => Promise<unknown>): ToolDefinition {
  return {
    name,
    description: name,
    inputSchema: z.looseObject({}),
    taskMode: 'required',
    workflow: workflow as ToolDefinition['workflow'],
  };
}

export interface Harness {
  /** The file's own dev server and a client of it. */
  temporal: TestTemporal;
  client: Client;
  /** The client's connection, and a worker connection (for workers a test builds itself). */
  connection: Connection;
  nativeConnection: NativeConnection;
  taskQueue: string;
  /** A store as the server builds it (search attributes on, long TTL). */
  store: TemporalTaskStore;
  /** Another store over the same client and task queue, with some options changed. */
  storeWith(options: Partial<TaskStoreOptions>): TemporalTaskStore;
  /** Starts `tool` as tools/call would with a task; resolves to the taskId. */
  startTask(tool: ToolDefinition, args: Record<string, unknown>, store?: TemporalTaskStore): Promise<string>;
  /** The same, resolving to the snapshot store.start returns (its runId is the first run's). */
  startTaskSnapshot(tool: ToolDefinition, args: Record<string, unknown>, store?: TemporalTaskStore): Promise<TaskSnapshot>;
  /** Polls store.read until `ready` holds (or fails the test after `timeoutMs`). */
  waitFor(
    taskId: string,
    ready: (task: TaskSnapshot) => boolean,
    opts?: { timeoutMs?: number; store?: TemporalTaskStore; principal?: string },
  ): Promise<TaskSnapshot>;
  handle(taskId: string): WorkflowHandle;
  /** Runs a second worker on `taskQueue` while `fn` runs (to control when workflow tasks are taken). */
  withWorker<R>(taskQueue: string, fn: () => Promise<R>): Promise<R>;
  teardown(): Promise<void>;
}

export interface HarnessOptions {
  tools: ToolDefinition[];
  activities?: WorkerOptions['activities'];
}

export async function startHarness({ tools, activities }: HarnessOptions): Promise<Harness> {
  installRuntime();
  const temporal = await startTestTemporal();
  const nativeConnection = await NativeConnection.connect({ address: temporal.address });
  const taskQueue = `fast-${randomBytes(6).toString('hex')}`;
  const createWorker = (queue: string) =>
    Worker.create({
      connection: nativeConnection,
      taskQueue: queue,
      workflowsPath: WORKFLOWS_PATH,
      activities,
      plugins: [new McpTasksPlugin({ tools })],
      bundlerOptions: { webpackConfigHook: sourceWorkflowEntry },
      shutdownGraceTime: '1 s',
    });
  const closeTemporal = async () => {
    await nativeConnection.close();
    await temporal.stop();
  };
  let worker: Worker;
  try {
    worker = await createWorker(taskQueue);
  } catch (err) {
    await closeTemporal();
    throw err;
  }
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let workerError: unknown;
  const running = worker.runUntil(stopped).catch((err: unknown) => {
    workerError = err;
  });

  const storeOptions: TaskStoreOptions = {
    taskQueue,
    ttlMs: 60 * 60_000,
    temporalTimeoutMs: 10_000,
    historyLimit: 10_000,
    searchAttributes: true,
  };
  const storeWith = (options: Partial<TaskStoreOptions>) => new TemporalTaskStore(temporal.client, { ...storeOptions, ...options });
  const store = storeWith({});
  const startTaskSnapshot: Harness['startTaskSnapshot'] = (tool, args, s = store) =>
    s.start({ tool: tool.name, workflowType: tool.workflow!.name, arguments: args, summary: `test ${tool.name}` });

  return {
    temporal,
    client: temporal.client,
    connection: temporal.client.connection as Connection,
    nativeConnection,
    taskQueue,
    store,
    storeWith,
    startTaskSnapshot,
    startTask: async (tool, args, s) => (await startTaskSnapshot(tool, args, s)).taskId,
    async waitFor(taskId, ready, { timeoutMs = 15_000, store: s = store, principal } = {}) {
      const deadline = Date.now() + timeoutMs;
      let last: TaskSnapshot | undefined;
      for (;;) {
        if (workerError) throw workerError;
        last = await s.read(taskId, principal);
        if (last && ready(last)) return last;
        if (Date.now() > deadline) throw new Error(`task ${taskId} did not reach the expected state; last seen: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    handle: (taskId) => temporal.client.workflow.getHandle(taskId),
    async withWorker(queue, fn) {
      const extra = await createWorker(queue);
      let result: Awaited<ReturnType<typeof fn>> | undefined;
      await extra.runUntil(async () => {
        result = await fn();
      });
      return result!;
    },
    async teardown() {
      stop();
      await running;
      await closeTemporal();
      if (workerError) throw workerError;
    },
  };
}

/** The current details (setCurrentDetails) a workflow shows in the Temporal UI. */
export async function currentDetails(handle: WorkflowHandle): Promise<string> {
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

/** The workflow's history event types, in order (e.g. 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED'). */
export async function historyEventTypes(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  const { temporal } = await import('@temporalio/proto');
  return (history.events ?? []).map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0]);
}

/** An elicitation answer accepting `content`. */
export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

/**
 * The effects ledger of the saga fixtures: the steps in place (`applied`) and every undo that
 * ran, in order (`undone`). `applyStep` heartbeats through `ms` and finishes whatever happens (a
 * cancel that lands while it runs does not stop it); an undo of a `fail:` key is refused for good.
 */
export function sagaLedger() {
  const applied = new Set<string>();
  const undone: string[] = [];
  const activities: SagaActivities = {
    async applyStep({ key, ms = 0 }) {
      for (const end = Date.now() + ms; Date.now() < end;) {
        Context.current().heartbeat();
        await new Promise((r) => setTimeout(r, 100));
      }
      applied.add(key);
    },
    async undoStep({ key }) {
      if (key.startsWith('fail:')) throw ApplicationFailure.nonRetryable(`the API refuses to delete ${key.slice(5)}`, 'UndoRefused');
      undone.push(key);
      applied.delete(key);
    },
  };
  return {
    applied,
    undone,
    activities,
    effectsOf: (taskId: string) => [...applied].filter((k) => k.startsWith(`${taskId}:`)).sort(),
    undosOf: (taskId: string) => undone.filter((k) => k.startsWith(`${taskId}:`)),
  };
}
