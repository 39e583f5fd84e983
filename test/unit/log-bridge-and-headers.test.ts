import { bridgeLogLevel } from '../../src/cli/worker-runtime';
import { mcpNameHeaderValue } from '../../src/mcp/http/http-server';

describe('the worker log bridge', () => {
  const core = { sdkComponent: 'core' };

  test.each([
    'Activity not found on completion. This may happen if the activity has already been cancelled but completed anyway.',
    'Activity not found when recording heartbeat',
  ])('demotes the benign core warning %p to debug', (message) => {
    expect(bridgeLogLevel({ level: 'WARN', message, meta: core })).toBe('debug');
  });

  test('keeps every other entry at its own level', () => {
    const benign = 'Activity not found on completion. This may happen if the activity has already been cancelled but completed anyway.';
    expect(bridgeLogLevel({ level: 'WARN', message: 'Network error while completing activity', meta: core })).toBe('warn');
    expect(bridgeLogLevel({ level: 'ERROR', message: benign, meta: core })).toBe('error');
    expect(bridgeLogLevel({ level: 'WARN', message: benign, meta: { sdkComponent: 'activity' } })).toBe('warn');
    expect(bridgeLogLevel({ level: 'WARN', message: benign })).toBe('warn');
    expect(bridgeLogLevel({ level: 'INFO', message: 'Worker state changed', meta: { sdkComponent: 'worker' } })).toBe('info');
    expect(bridgeLogLevel({ level: 'TRACE', message: 'x', meta: core })).toBe('trace');
  });
});

describe('Mcp-Name taken from the body', () => {
  test('plain ASCII names are used as they are', () => {
    expect(mcpNameHeaderValue('task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe('task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(mcpNameHeaderValue('file:///a b.txt')).toBe('file:///a b.txt');
  });

  test.each(['héllo', ' padded', 'line\nbreak', '', '=?base64?aGk=?='])('%p is sent as a Base64 sentinel', (value) => {
    const header = mcpNameHeaderValue(value);
    expect(header).toMatch(/^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/);
    expect(Buffer.from(header.slice(9, -2), 'base64').toString('utf8')).toBe(value);
    expect(() => new Headers({ 'mcp-name': header })).not.toThrow();
  });
});
