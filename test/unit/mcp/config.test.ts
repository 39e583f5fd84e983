/** The server's settings: defaults, environment and flags (flags win), refusals that name the flag and variable; the duration grammar. */
import { ConfigError, DurationMsSchema, parseDurationMs, parseServerConfig } from '../../../src/mcp/config';

test('config: defaults, env and flags (flags win)', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ host: '127.0.0.1', port: 3000, taskQueue: 'mcp-tasks', strictHeaders: false });
  expect(parseServerConfig({ port: '4001' }, { MCP_PORT: '4000', MCP_POLL_INTERVAL_MS: '250', MCP_STRICT_HEADERS: 'true' }))
    .toMatchObject({ port: 4001, pollIntervalMs: 250, strictHeaders: true });
  expect(parseServerConfig({}, { MCP_STRICT_HEADERS: 'false' })).toMatchObject({ strictHeaders: false });
  expect(parseServerConfig({ strictHeaders: false }, { MCP_STRICT_HEADERS: 'true' })).toMatchObject({ strictHeaders: false });
});

test.each([
  [{ port: 'abc' }, /port \(--port or MCP_PORT\)/],
  [{ port: '70000' }, /port/],
  [{ ttlMs: '-5' }, /ttlMs \(--ttl-ms or MCP_TASK_TTL_MS\)/],
  [{ pollIntervalMs: '0' }, /pollIntervalMs/],
])('config: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

test('settings: defaults, environment, flags', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ taskHandles: true, handleWaitMs: 20_000, taskToolsPrefix: 'task_', requiredToolsNeedTasks: false });
  const env = { MCP_TASK_HANDLES: 'false', MCP_HANDLE_WAIT_MS: '2000', MCP_TASK_TOOLS_PREFIX: 'temporal_', MCP_REQUIRED_TOOLS_NEED_TASKS: '1' };
  expect(parseServerConfig({}, env)).toMatchObject({ taskHandles: false, handleWaitMs: 2000, taskToolsPrefix: 'temporal_', requiredToolsNeedTasks: true });
  expect(parseServerConfig({ handleWaitMs: '500', taskHandles: true }, env)).toMatchObject({ handleWaitMs: 500, taskHandles: true });
});

test.each([
  [{ handleWaitMs: '0' }, /handleWaitMs \(--handle-wait-ms or MCP_HANDLE_WAIT_MS\)/],
  [{ handleWaitMs: '700000' }, /handleWaitMs/],
  [{ taskToolsPrefix: 'tasks.' }, /taskToolsPrefix \(--task-tools-prefix or MCP_TASK_TOOLS_PREFIX\)/],
])('settings: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

describe('the one duration grammar', () => {
  test.each<[string | number, number]>([
    [250, 250],
    ['250', 250],
    ['500ms', 500],
    ['500 milliseconds', 500],
    ['1.5s', 1500],
    ['30 secs', 30_000],
    ['2m', 120_000],
    ['10 minutes', 600_000],
    ['1.5h', 5_400_000],
    ['2 HOURS', 7_200_000],
    ['1d', 86_400_000],
    ['2 days', 172_800_000],
    ['1w', 604_800_000],
    ['  45s  ', 45_000],
    ['0.0004s', 0], // rounded to whole milliseconds
  ])('%p is %i ms', (value, ms) => expect(parseDurationMs(value)).toBe(ms));

  test.each(['', 'soon', '-1s', '1 parsec', '1y', '1h30m', 's', '1.s', '1e3'])('%p is not a duration', (value) => expect(parseDurationMs(value)).toBeUndefined());

  test('as a setting: to milliseconds, or an issue with examples', () => {
    expect(DurationMsSchema.parse('2m')).toBe(120_000);
    expect(DurationMsSchema.parse(1500)).toBe(1500);
    const bad = DurationMsSchema.safeParse('later');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe('"later" is not a duration (e.g. 30s, 2m, 500ms, 2 hours)');
  });
});
