/** The worker's logging: the core log bridge's levels, and payload fields hidden with a codec. */
import { bridgeLogLevel, redactPayloadFields } from '../../../src/cli/worker-runtime';

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

describe('worker logs with a payload codec', () => {
  test('statusMessage is hidden at info and above, kept at debug, untouched without a codec', () => {
    const fields = { taskId: 't', statusMessage: 'paying card 4111 1111' };
    expect(redactPayloadFields(fields, 'info', true)).toEqual({ taskId: 't', statusMessage: '[hidden: payload codec on]' });
    expect(redactPayloadFields(fields, 'warn', true).statusMessage).toBe('[hidden: payload codec on]');
    expect(redactPayloadFields(fields, 'debug', true)).toBe(fields);
    expect(redactPayloadFields(fields, 'info', false)).toBe(fields);
  });
});
