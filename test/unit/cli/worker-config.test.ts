/** The worker's settings: defaults, environment, flags win, durations; refusals name the flag and variable. */
import { ConfigError } from '../../../src/mcp/config';
import { devWorkerTuning, hostPort, parseWorkerConfig, workerTuning } from '../../../src/cli/worker-config';
import { DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS } from '../../../src/worker/defaults';

test('worker config: defaults, environment, flags win, durations', () => {
  expect(parseWorkerConfig({}, {})).toEqual({
    shutdownGrace: 30_000,
    maxCachedWorkflows: 100,
    maxConcurrentActivities: 50,
    maxConcurrentWorkflowTasks: 20,
    stickyScheduleToStartTimeout: DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS,
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
    maxCachedWorkflows: 100,
    maxConcurrentActivityTaskExecutions: 50,
    maxConcurrentWorkflowTaskExecutions: 20,
    stickyQueueScheduleToStartTimeout: DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS,
  });
  // the sticky timeout: a duration, from the environment, the flag over it
  const sticky = (flags: object, env: NodeJS.ProcessEnv) => workerTuning(parseWorkerConfig(flags, env)).stickyQueueScheduleToStartTimeout;
  expect(sticky({}, { MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '5s' })).toBe(5000);
  expect(sticky({ stickyScheduleToStartTimeout: '750ms' }, { MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '5s' })).toBe(750);
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
  [{ stickyScheduleToStartTimeout: 'soon' }, /--sticky-schedule-to-start-timeout or MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT/],
  [{ stickyScheduleToStartTimeout: '0' }, /--sticky-schedule-to-start-timeout/], // under the 100 ms floor
  [{ stickyScheduleToStartTimeout: '50ms' }, /--sticky-schedule-to-start-timeout/],
  [{ stickyScheduleToStartTimeout: '11m' }, /--sticky-schedule-to-start-timeout/], // over the 10 min bound
])('worker config: %j is refused clearly', (flags, message) => {
  expect(() => parseWorkerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseWorkerConfig(flags, {})).toThrow(message);
});

test('dev: its worker takes the cache size and the sticky timeout, from the same variables as worker; bad values are refused', () => {
  expect(devWorkerTuning({}, {})).toEqual({
    maxCachedWorkflows: 100,
    stickyQueueScheduleToStartTimeout: DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS,
  });
  const env = { MCP_WORKER_MAX_CACHED_WORKFLOWS: '100', MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '3s' };
  expect(devWorkerTuning({ stickyScheduleToStartTimeout: '1s', dbFile: 'x.db' }, env)).toEqual({
    maxCachedWorkflows: 100,
    stickyQueueScheduleToStartTimeout: 1000,
  });
  expect(() => devWorkerTuning({ maxCachedWorkflows: '-1' }, {})).toThrow(
    /Invalid dev configuration[\s\S]*--max-cached-workflows or MCP_WORKER_MAX_CACHED_WORKFLOWS/,
  );
  expect(() => devWorkerTuning({}, { MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: 'fast' })).toThrow(
    /--sticky-schedule-to-start-timeout or MCP_WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT/,
  );
});
