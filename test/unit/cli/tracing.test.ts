/**
 * Tracing's settings from the standard OTEL_* variables (src/cli/tracing.ts): off unless asked
 * for, the OTLP rules for the traces URL, the samplers, and a clear refusal of what it cannot do.
 * Off, nothing of the OpenTelemetry SDK is loaded (checked on the build, in a child Node).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { tracingSettings } from '../../../src/cli/tracing';
import { ConfigError } from '../../../src/mcp/config';

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('off without OTEL_* variables, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true', () => {
  expect(tracingSettings({})).toBeUndefined();
  expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
  expect(tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
  expect(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
});

test('the traces URL: the general endpoint gets /v1/traces, the traces endpoint is used as given, otlp alone the default', () => {
  expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.tracesUrl).toBe('http://collector:4318/v1/traces');
  expect(
    tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom' })?.tracesUrl,
  ).toBe('https://b/custom');
  expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })?.tracesUrl).toBe('http://localhost:4318/v1/traces');
});

test('samplers: parent-based always-on by default; the ratio ones take OTEL_TRACES_SAMPLER_ARG', () => {
  const on = { OTEL_TRACES_EXPORTER: 'otlp' };
  expect(tracingSettings(on)).toEqual({ tracesUrl: 'http://localhost:4318/v1/traces', sampler: { parentBased: true, ratio: 1 } });
  expect(tracingSettings({ ...on, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })?.sampler).toEqual({
    parentBased: false,
    ratio: 0.25,
  });
  expect(tracingSettings({ ...on, OTEL_TRACES_SAMPLER: 'parentbased_always_off' })?.sampler).toEqual({ parentBased: true, ratio: 0 });
  expect(tracingSettings({ ...on, OTEL_SERVICE_NAME: 'billing-mcp' })?.serviceName).toBe('billing-mcp');
});

test.each([
  [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER=zipkin: only otlp/],
  [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL=grpc: only OTLP over HTTP/],
  [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4317' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=collector:4317: an http/],
  [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER=sometimes: one of always_on/],
  [
    { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
    /OTEL_TRACES_SAMPLER_ARG=2: a ratio/,
  ],
])('refused with the variable named: %j', (env, message) => {
  expect(() => tracingSettings(env)).toThrow(ConfigError);
  expect(() => tracingSettings(env)).toThrow(message);
});

test('off, neither the server side, the plugin nor the CLI settings load the OpenTelemetry SDK or Temporal’s interceptors', () => {
  const dist = (m: string) => JSON.stringify(path.join(ROOT, 'dist', m));
  const script = `
    require(${dist('index.js')});
    const { McpTasksPlugin } = require(${dist('worker/index.js')});
    new McpTasksPlugin({ tools: [] });
    if (require(${dist('cli/tracing.js')}).tracingSettings({}) !== undefined) throw new Error('tracing on without variables');
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));
  `;
  const out = spawnSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH },
  });
  expect(out.stderr).toBe('');
  const cache = (JSON.parse(out.stdout) as string[]).map((f) => f.split(path.sep).join('/'));
  expect(cache.some((f) => f.includes('/@opentelemetry/api/'))).toBe(true); // the no-op API is all there is
  const sdk = /node_modules\/(@opentelemetry\/(sdk-|exporter-|resources|core\/)|@temporalio\/interceptors-opentelemetry\/)/;
  expect(cache.filter((f) => sdk.test(f))).toEqual([]);
});
