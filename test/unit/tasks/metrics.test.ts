/** The metrics module: labels stay few whatever callers send, gRPC codes by name, off records nothing. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { configureMetrics, grpcCodeOf, metrics, registry } from '../../../src/tasks/metrics';
import { parseSamples, sampleSum } from '../../support/prometheus';

const count = async (name: string, labels: Record<string, string> = {}) => sampleSum(parseSamples(await registry.metrics()), name, labels);

afterEach(() => configureMetrics({ enabled: true }));

test('a method outside the known set is counted as `other`, so a caller cannot add label values', async () => {
  const before = await count('mcp_tasks_requests_total', { method: 'other', outcome: 'ok' });
  metrics.request('x/'.repeat(50), 'ok', 0.01);
  metrics.request('tasks/get', 'error', 0.01);
  expect(await count('mcp_tasks_requests_total', { method: 'other', outcome: 'ok' })).toBe(before + 1);
  expect(await count('mcp_tasks_requests_total', { method: 'tasks/get', outcome: 'error' })).toBeGreaterThanOrEqual(1);
  expect(await registry.metrics()).not.toContain('x/x/');
});

test('watches are held and given back by kind', async () => {
  const before = await count('mcp_tasks_watches', { kind: 'held_call' });
  metrics.watchHeld('held_call', 2);
  expect(await count('mcp_tasks_watches', { kind: 'held_call' })).toBe(before + 2);
  metrics.watchHeld('held_call', -2);
  expect(await count('mcp_tasks_watches', { kind: 'held_call' })).toBe(before);
});

test('turned off, nothing is recorded', async () => {
  configureMetrics({ enabled: false });
  const before = await count('mcp_tasks_tasks_started_total', { tool: 'off_tool' });
  metrics.taskStarted('off_tool');
  metrics.temporalCall(0.5, 'unavailable');
  expect(await count('mcp_tasks_tasks_started_total', { tool: 'off_tool' })).toBe(before);
  configureMetrics({ enabled: true });
  metrics.taskStarted('off_tool');
  expect(await count('mcp_tasks_tasks_started_total', { tool: 'off_tool' })).toBe(before + 1);
});

test('the Temporal probe is asked at each scrape: 1 when it answers, 0 when not', async () => {
  let answers = true;
  configureMetrics({ enabled: true, temporalUp: async () => answers });
  expect(await count('mcp_tasks_temporal_up')).toBe(1);
  answers = false;
  expect(await count('mcp_tasks_temporal_up')).toBe(0);
});

test('grpcCodeOf names the gRPC status on the error or its causes; other when there is none', () => {
  expect(grpcCodeOf(Object.assign(new Error('down'), { code: 14 }))).toBe('unavailable');
  expect(grpcCodeOf(new Error('wrapped', { cause: Object.assign(new Error('late'), { code: 4 }) }))).toBe('deadline_exceeded');
  expect(grpcCodeOf(new WorkflowNotFoundError('gone', 'wf', undefined))).toBe('not_found');
  expect(grpcCodeOf(new Error('no code'))).toBe('other');
  expect(grpcCodeOf(Object.assign(new Error('odd'), { code: 99 }))).toBe('other');
  expect(grpcCodeOf(undefined)).toBe('other');
});
