/**
 * The history-recording scenarios (test/histories/scenarios.yaml, described at its top) and the
 * few steps they are made of: driving a task over MCP, matching what it shows, checking events.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import YAML from 'yaml';
import type { McpTasks } from '../test/support/mcp-client';
import { fromDist, ROOT } from '../test/support/paths';
import { sleep } from '../test/support/wait';

const { inputResponsesSignal } = fromDist<typeof import('../dist/contract')>('contract');

export const SCENARIOS_FILE = path.join(ROOT, 'test', 'histories', 'scenarios.yaml');

/** Keys of a task (or a tools/call result) to values; a string /like this/ is a regular expression. */
export type Match = Record<string, unknown>;
type Responses = Record<string, unknown>;

export type Step =
  | { wait: Match }
  | { update: Responses }
  | { cancel: true }
  | { sleep: number }
  | { signal: Responses }
  | { still: Match }
  | { repeat: number; steps: Step[] };

export interface Scenario {
  name: string;
  about: string;
  tool: string;
  args: Record<string, unknown>;
  sync?: boolean;
  inputResponses?: Responses;
  drive?: Step[];
  expect: Match;
  minRuns?: number;
  check?: { activities?: Record<string, number>; marker?: { patch: string; beforeRevision: number } };
}

/** An event of a history in Temporal's proto JSON, as far as the checks read it. */
export interface HistoryEvent {
  eventType?: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  markerRecordedEventAttributes?: unknown;
}

/** The scenarios and the serve's history limit they are recorded with; `{tool}` and `{historyLimit}` in an about are filled in. */
export function loadScenarios(file = SCENARIOS_FILE): { historyLimit: number; scenarios: Scenario[] } {
  const data = YAML.parse(fs.readFileSync(file, 'utf8')) as { historyLimit: number; scenarios: Scenario[] };
  const scenarios = data.scenarios.map((s) => ({ ...s, about: fill(s.about, { tool: s.tool, historyLimit: data.historyLimit }) }));
  return { historyLimit: data.historyLimit, scenarios };
}

/** `{name}` in every string of value replaced by vars[name]. */
function fill<T>(value: T, vars: Record<string, string | number>): T {
  if (typeof value === 'string')
    return value.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)) as T;
  if (Array.isArray(value)) return value.map((v) => fill(v, vars)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [fill(k, vars), fill(v, vars)])) as T;
  return value;
}

/** What a match reads from a task or a tools/call result. */
const READ: Record<string, (t: any) => unknown> = {
  status: (t) => t.status,
  statusMessage: (t) => t.statusMessage ?? '',
  resultType: (t) => t.resultType,
  text: (t) => (t.result ?? t).content?.[0]?.text,
  isError: (t) => (t.result ?? t).isError,
  error: (t) => t.error?.message ?? '',
  errorOrTask: (t) => JSON.stringify(t.error ?? t),
  inputKeys: (t) => Object.keys(t.inputRequests ?? {}),
  inputCount: (t) => Object.keys(t.inputRequests ?? {}).length,
  inputHas: (t) => Object.keys(t.inputRequests ?? {}),
};

export function matches(t: unknown, match: Match): boolean {
  return Object.entries(match).every(([key, want]) => {
    const read = READ[key];
    if (!read) throw new Error(`no such key in a match: ${key}`);
    const got = read(t);
    if (key === 'inputHas') return (got as string[]).includes(String(want));
    const regex = typeof want === 'string' ? /^\/(.*)\/$/s.exec(want) : null;
    if (regex) return new RegExp(regex[1]).test(String(got));
    return JSON.stringify(got) === JSON.stringify(want);
  });
}

/** Runs the scenario's steps on its task. */
export async function drive(steps: Step[], mcp: McpTasks, taskId: string, client: Client): Promise<void> {
  for (const step of steps) {
    if ('repeat' in step) {
      for (let i = 0; i < step.repeat; i++) await drive(fill(step.steps, { i }), mcp, taskId, client);
    } else if ('wait' in step) await mcp.waitForTask(taskId, (t) => matches(t, step.wait));
    else if ('update' in step) await mcp.updateTask(taskId, step.update);
    else if ('cancel' in step) await mcp.cancelTask(taskId);
    else if ('sleep' in step) await sleep(step.sleep);
    else if ('signal' in step) await client.workflow.getHandle(taskId).signal(inputResponsesSignal, step.signal);
    else if ('still' in step) {
      const still = await mcp.getTask(taskId);
      if (!matches(still, step.still)) throw new Error(`the task changed: ${JSON.stringify(still).slice(0, 500)}`);
    } else throw new Error(`no such step: ${JSON.stringify(step)}`);
  }
}

/** The scenario's checks on the events of every run; revision is the task runtime revision recorded. */
export function check(scenario: Scenario, events: HistoryEvent[], revision: number): void {
  for (const [type, count] of Object.entries(scenario.check?.activities ?? {})) expectActivities(events, type, count);
  const marker = scenario.check?.marker;
  if (marker && revision < marker.beforeRevision) expectMarker(events, marker.patch);
}

function expectActivities(events: HistoryEvent[], type: string, count: number): void {
  const n = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length;
  if (n !== count) throw new Error(`expected ${count} ${type} activities, got ${n}`);
}

/** A patched() marker: its details' payloads (base64 JSON) name the patch. */
function expectMarker(events: HistoryEvent[], patchId: string): void {
  const decoded = (v: unknown): string =>
    v && typeof v === 'object'
      ? Object.entries(v)
          .map(([k, x]) => (k === 'data' && typeof x === 'string' ? Buffer.from(x, 'base64').toString() : decoded(x)))
          .join(' ')
      : '';
  const found = events.some((e) => e.markerRecordedEventAttributes && decoded(e.markerRecordedEventAttributes).includes(patchId));
  if (!found) throw new Error(`no patch marker ${patchId} in the history`);
}
