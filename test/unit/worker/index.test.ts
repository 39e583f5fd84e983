/** McpTasksPlugin's sticky schedule-to-start timeout: the worker's own option wins, then the plugin's, then ours. */
import type { WorkerOptions } from '@temporalio/worker';
import { DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS, McpTasksPlugin } from '../../../src/worker';

const configured = (plugin: McpTasksPlugin, options: Partial<WorkerOptions> = {}) =>
  plugin.configureWorker({ taskQueue: 'plugin-unit', ...options }).stickyQueueScheduleToStartTimeout;

test('without a setting the worker gets our default, not the SDK 10 s', () => {
  expect(configured(new McpTasksPlugin())).toBe(DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS);
  expect(DEFAULT_STICKY_SCHEDULE_TO_START_TIMEOUT_MS).toBeLessThan(10_000);
});

test("the plugin's option applies; the worker's own option wins over it", () => {
  expect(configured(new McpTasksPlugin({ stickyQueueScheduleToStartTimeout: '4s' }))).toBe('4s');
  expect(configured(new McpTasksPlugin({ stickyQueueScheduleToStartTimeout: '4s' }), { stickyQueueScheduleToStartTimeout: 700 })).toBe(700);
});
