/** The worker's logging: the core log bridge's levels, and payload fields hidden with a codec. */
import { bridgeLogLevel, redactPayloadFields, TaskTraces } from '../../../src/cli/worker-runtime';

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

describe('TaskTraces: the SDK’s own lines about a traced task get its trace_id', () => {
  test('a line without trace_id gets the last one seen for its task; other tasks and untraced ones stay without', () => {
    const traces = new TaskTraces();
    expect(traces.fill('task_a', { msg: 'Workflow started' })).toEqual({ msg: 'Workflow started' });
    expect(traces.fill('task_a', { msg: 'step', trace_id: 't1' })).toEqual({ msg: 'step', trace_id: 't1' });
    expect(traces.fill('task_a', { msg: 'Activity completed' })).toEqual({ msg: 'Activity completed', trace_id: 't1' });
    expect(traces.fill('task_b', { msg: 'Activity completed' })).toEqual({ msg: 'Activity completed' });
    expect(traces.fill(undefined, { msg: 'Worker state changed' })).toEqual({ msg: 'Worker state changed' });
  });

  test('bounded: past its limit the task seen longest ago is forgotten', () => {
    const traces = new TaskTraces(2);
    traces.fill('a', { trace_id: 'ta' });
    traces.fill('b', { trace_id: 'tb' });
    traces.fill('a', { trace_id: 'ta' }); // seen again: now the most recent
    traces.fill('c', { trace_id: 'tc' });
    expect(traces.fill('b', {})).toEqual({});
    expect(traces.fill('a', {})).toEqual({ trace_id: 'ta' });
    expect(traces.fill('c', {})).toEqual({ trace_id: 'tc' });
  });
});
