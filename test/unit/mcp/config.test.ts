/** The server's settings: defaults, environment and flags (flags win), refusals that name the flag and variable (the duration grammar: duration.test.ts). */
import { ConfigError, parseServerConfig } from '../../../src/mcp/config';

test('config: defaults, env and flags (flags win)', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ host: '127.0.0.1', port: 3000, taskQueue: 'mcp-tasks', strictHeaders: false });
  expect(parseServerConfig({ port: '4001' }, { MCP_PORT: '4000', MCP_POLL_INTERVAL_MS: '250', MCP_STRICT_HEADERS: 'true' })).toMatchObject({
    port: 4001,
    pollIntervalMs: 250,
    strictHeaders: true,
  });
  expect(parseServerConfig({}, { MCP_STRICT_HEADERS: 'false' })).toMatchObject({ strictHeaders: false });
  expect(parseServerConfig({ strictHeaders: false }, { MCP_STRICT_HEADERS: 'true' })).toMatchObject({ strictHeaders: false });
});

test.each([
  [{ port: 'abc' }, /port \(--port or MCP_PORT\)/],
  [{ port: '70000' }, /port/],
  [{ ttlMs: '-5' }, /ttlMs \(--ttl-ms or MCP_TASK_TTL_MS\)/],
  [{ pollIntervalMs: '0' }, /pollIntervalMs/],
  [{ maxConnections: '0' }, /maxConnections \(--max-connections or MCP_MAX_CONNECTIONS\)/],
  [{ requestTimeoutMs: '10' }, /requestTimeoutMs \(--request-timeout-ms or MCP_REQUEST_TIMEOUT_MS\)/],
])('config: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

test('the HTTP edge: connections and the request deadline from flags or the environment', () => {
  expect(parseServerConfig({}, {}).requestTimeoutMs).toBe(30_000);
  expect(parseServerConfig({}, { MCP_MAX_CONNECTIONS: '300', MCP_REQUEST_TIMEOUT_MS: '10s' })).toMatchObject({
    maxConnections: 300,
    requestTimeoutMs: 10_000,
  });
  expect(parseServerConfig({ maxConnections: '50' }, { MCP_MAX_CONNECTIONS: '300' }).maxConnections).toBe(50);
});

test('settings: defaults, environment, flags', () => {
  expect(parseServerConfig({}, {})).toMatchObject({
    taskHandles: true,
    handleWaitMs: 20_000,
    taskToolsPrefix: 'task_',
    requiredToolsNeedTasks: false,
  });
  const env = {
    MCP_TASK_HANDLES: 'false',
    MCP_HANDLE_WAIT_MS: '2000',
    MCP_TASK_TOOLS_PREFIX: 'temporal_',
    MCP_REQUIRED_TOOLS_NEED_TASKS: '1',
  };
  expect(parseServerConfig({}, env)).toMatchObject({
    taskHandles: false,
    handleWaitMs: 2000,
    taskToolsPrefix: 'temporal_',
    requiredToolsNeedTasks: true,
  });
  expect(parseServerConfig({ handleWaitMs: '500', taskHandles: true }, env)).toMatchObject({ handleWaitMs: 500, taskHandles: true });
});

test('retryGraceMs: 10 minutes by default, MCP_RETRY_GRACE_MS or a flag, 0 turns retries off', () => {
  expect(parseServerConfig({}, {}).retryGraceMs).toBe(600_000);
  expect(parseServerConfig({}, { MCP_RETRY_GRACE_MS: '0' }).retryGraceMs).toBe(0);
  expect(parseServerConfig({ retryGraceMs: '2 minutes' }, { MCP_RETRY_GRACE_MS: '0' }).retryGraceMs).toBe(120_000);
});

test('progressWaitMs: 5 minutes by default, MCP_PROGRESS_WAIT_MS or a flag (a duration)', () => {
  expect(parseServerConfig({}, {}).progressWaitMs).toBe(300_000);
  expect(parseServerConfig({}, { MCP_PROGRESS_WAIT_MS: '60000' }).progressWaitMs).toBe(60_000);
  expect(parseServerConfig({ progressWaitMs: '10m' }, { MCP_PROGRESS_WAIT_MS: '60000' }).progressWaitMs).toBe(600_000);
});

test('watchPolledTasks: on by default, MCP_WATCH_POLLED_TASKS=false turns it off, a flag wins', () => {
  expect(parseServerConfig({}, {}).watchPolledTasks).toBe(true);
  expect(parseServerConfig({}, { MCP_WATCH_POLLED_TASKS: 'false' }).watchPolledTasks).toBe(false);
  expect(parseServerConfig({ watchPolledTasks: true }, { MCP_WATCH_POLLED_TASKS: 'false' }).watchPolledTasks).toBe(true);
});

test.each([
  [{ handleWaitMs: '0' }, /handleWaitMs \(--handle-wait-ms or MCP_HANDLE_WAIT_MS\)/],
  [{ handleWaitMs: '700000' }, /handleWaitMs/],
  [{ taskToolsPrefix: 'tasks.' }, /taskToolsPrefix \(--task-tools-prefix or MCP_TASK_TOOLS_PREFIX\)/],
  [{ retryGraceMs: '-1' }, /retryGraceMs \(--retry-grace-ms or MCP_RETRY_GRACE_MS\)/],
  [{ retryGraceMs: '2 days' }, /retryGraceMs/],
  [{ progressWaitMs: '0' }, /progressWaitMs \(--progress-wait-ms or MCP_PROGRESS_WAIT_MS\)/],
  [{ progressWaitMs: '2h' }, /progressWaitMs/],
])('settings: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

test('answerWithinMs: unset (the ttl) by default, anonymous 1 h; env or flags; a negative one is refused naming its flag', () => {
  expect(parseServerConfig({}, {}).answerWithinMs).toBeUndefined();
  expect(parseServerConfig({}, {}).anonymousAnswerWithinMs).toBe(3_600_000);
  expect(parseServerConfig({ answerWithinMs: '2h' }, { MCP_ANSWER_WITHIN_MS: '0', MCP_ANONYMOUS_ANSWER_WITHIN_MS: '10m' })).toMatchObject({
    answerWithinMs: 7_200_000,
    anonymousAnswerWithinMs: 600_000,
  });
  expect(() => parseServerConfig({ anonymousAnswerWithinMs: '-1' }, {})).toThrow(
    /anonymousAnswerWithinMs \(--anonymous-answer-within-ms or MCP_ANONYMOUS_ANSWER_WITHIN_MS\)/,
  );
});

test('temporalUiUrl: unset by default, MCP_TEMPORAL_UI_URL or a flag; anything but an http(s) URL is refused naming its flag', () => {
  expect(parseServerConfig({}, {}).temporalUiUrl).toBeUndefined();
  expect(parseServerConfig({}, { MCP_TEMPORAL_UI_URL: 'http://localhost:8233' }).temporalUiUrl).toBe('http://localhost:8233');
  expect(parseServerConfig({ temporalUiUrl: 'https://ui.example' }, { MCP_TEMPORAL_UI_URL: 'http://x' }).temporalUiUrl).toBe(
    'https://ui.example',
  );
  for (const bad of ['localhost:8233', 'ftp://ui.example', 'javascript:alert(1)'])
    expect(() => parseServerConfig({ temporalUiUrl: bad }, {})).toThrow(/temporalUiUrl \(--temporal-ui-url or MCP_TEMPORAL_UI_URL\)/);
});

test('metrics: on at /metrics of the MCP port by default; MCP_METRICS=false turns them off; a port of their own from a flag or MCP_METRICS_PORT', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ metrics: true, metricsHost: '127.0.0.1' });
  expect(parseServerConfig({}, {}).metricsPort).toBeUndefined();
  expect(parseServerConfig({}, { MCP_METRICS: 'false' })).toMatchObject({ metrics: false });
  expect(parseServerConfig({ metrics: true }, { MCP_METRICS: 'false' })).toMatchObject({ metrics: true });
  expect(parseServerConfig({}, { MCP_METRICS_PORT: '9465', MCP_METRICS_HOST: '0.0.0.0' })).toMatchObject({
    metricsPort: 9465,
    metricsHost: '0.0.0.0',
  });
  expect(parseServerConfig({ metricsPort: '0' }, { MCP_METRICS_PORT: '9465' })).toMatchObject({ metricsPort: 0 });
  expect(() => parseServerConfig({ metricsPort: '70000' }, {})).toThrow(/metricsPort \(--metrics-port or MCP_METRICS_PORT\)/);
});
