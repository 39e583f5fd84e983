/** The worker's settings: defaults, environment, flags win, durations; refusals name the flag and variable. */
import { ConfigError } from '../../../src/mcp/config';
import { hostPort, parseWorkerConfig, workerTuning } from '../../../src/cli/worker-config';

test('worker config: defaults, environment, flags win, durations', () => {
  expect(parseWorkerConfig({}, {})).toEqual({
    shutdownGrace: 30_000,
    maxCachedWorkflows: 500,
    maxConcurrentActivities: 50,
    maxConcurrentWorkflowTasks: 20,
    metricsHost: '127.0.0.1',
    healthHost: '127.0.0.1',
  });
  const env = { MCP_WORKER_SHUTDOWN_GRACE: '2m', MCP_METRICS_PORT: '9464', MCP_HEALTH_PORT: '8081', MCP_WORKER_MAX_CACHED_WORKFLOWS: '0' };
  expect(parseWorkerConfig({ shutdownGrace: '1.5s', healthHost: '0.0.0.0' }, env)).toMatchObject({
    shutdownGrace: 1500,
    metricsPort: 9464,
    healthPort: 8081,
    healthHost: '0.0.0.0',
    maxCachedWorkflows: 0,
  });
  expect(parseWorkerConfig({ shutdownGrace: '250' }, {}).shutdownGrace).toBe(250);
  expect(parseWorkerConfig({ shutdownGrace: '1h' }, {}).shutdownGrace).toBe(3_600_000);
  // one grammar with tools files' executionTimeout: words are units too
  expect(parseWorkerConfig({ shutdownGrace: '30 seconds' }, {}).shutdownGrace).toBe(30_000);
  expect(workerTuning(parseWorkerConfig({}, {}))).toEqual({
    shutdownGraceTime: 30_000,
    shutdownForceTime: 40_000,
    maxCachedWorkflows: 500,
    maxConcurrentActivityTaskExecutions: 50,
    maxConcurrentWorkflowTaskExecutions: 20,
  });
  // the poller settings pass through only when set
  expect(workerTuning(parseWorkerConfig({ workflowTaskPollers: 'auto', nonStickyPollRatio: '0.5' }, {}))).toMatchObject({
    workflowTaskPollerBehavior: { type: 'autoscaling' },
    nonStickyToStickyPollRatio: 0.5,
  });
  expect(workerTuning(parseWorkerConfig({}, { MCP_WORKER_WORKFLOW_TASK_POLLERS: '12' })).maxConcurrentWorkflowTaskPolls).toBe(12);
  expect(hostPort('::', 9464)).toBe('[::]:9464');
  expect(hostPort('0.0.0.0', 9464)).toBe('0.0.0.0:9464');
});

test.each([
  [{ shutdownGrace: '30 parsecs' }, /--shutdown-grace or MCP_WORKER_SHUTDOWN_GRACE/],
  [{ shutdownGrace: '2 days' }, /--shutdown-grace/], // over the 24 h bound
  [{ shutdownGrace: '-1s' }, /--shutdown-grace/],
  [{ maxConcurrentActivities: '0' }, /--max-concurrent-activities or MCP_WORKER_MAX_CONCURRENT_ACTIVITIES/],
  [{ maxConcurrentWorkflowTasks: '1' }, /--max-concurrent-workflow-tasks/],
  [{ maxCachedWorkflows: '1.5' }, /--max-cached-workflows/],
  [{ metricsPort: '70000' }, /--metrics-port or MCP_METRICS_PORT/],
  [{ healthPort: 'x' }, /--health-port or MCP_HEALTH_PORT/],
  [{ workflowTaskPollers: 'many' }, /--workflow-task-pollers or MCP_WORKER_WORKFLOW_TASK_POLLERS/],
  [{ workflowTaskPollers: '1' }, /--workflow-task-pollers/],
  [{ nonStickyPollRatio: '2' }, /--non-sticky-poll-ratio or MCP_WORKER_NON_STICKY_POLL_RATIO/],
])('worker config: %j is refused clearly', (flags, message) => {
  expect(() => parseWorkerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseWorkerConfig(flags, {})).toThrow(message);
});
