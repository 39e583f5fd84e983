/** The 2026-07-28 revision's wire form of a task: a flat DetailedTask. */
import { DetailedTaskV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { toDetailedTask } from '../../../../src/mcp/rev2026-07-28/wire';
import type { TaskSnapshot, TaskState } from '../../../../src/tasks/task-snapshot';

const base = (state: TaskState, statusMessage?: string): TaskSnapshot => ({
  taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  tool: 't',
  createdAt: '2026-12-01T10:00:00.000Z',
  lastUpdatedAt: '2026-12-01T10:00:01.000Z',
  ttlMs: 60_000,
  startTtlMs: 60_000,
  statusMessage,
  state,
});

const elicitation = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
} as never;

test.each<[string, TaskState, Record<string, unknown>]>([
  ['working', { status: 'working' }, { status: 'working', pollIntervalMs: 500 }],
  [
    'input_required',
    { status: 'input_required', inputRequests: { a: elicitation } },
    { status: 'input_required', inputRequests: { a: elicitation } },
  ],
  [
    'completed',
    { status: 'completed', result: { content: [{ type: 'text', text: 'x' }], isError: true } },
    { status: 'completed', result: { content: [{ type: 'text', text: 'x' }], isError: true, resultType: 'complete' } },
  ],
  [
    'failed',
    { status: 'failed', error: { code: -32603, message: 'boom' } },
    { status: 'failed', error: { code: -32603, message: 'boom' } },
  ],
  ['cancelled', { status: 'cancelled' }, { status: 'cancelled' }],
])('%s maps to a valid flat DetailedTask', (_name, state, expected) => {
  const wire = toDetailedTask(base(state, 'msg'), 500);
  expect(DetailedTaskV2Schema.parse(wire)).toMatchObject({ ...expected, taskId: base(state).taskId, ttlMs: 60_000, statusMessage: 'msg' });
  if (state.status !== 'completed') expect(wire).not.toHaveProperty('result');
  if (state.status !== 'failed') expect(wire).not.toHaveProperty('error');
  if (state.status !== 'input_required') expect(wire).not.toHaveProperty('inputRequests');
  if (['completed', 'failed', 'cancelled'].includes(state.status)) expect(wire).not.toHaveProperty('pollIntervalMs');
});

test('no statusMessage key when there is none', () => {
  expect(toDetailedTask(base({ status: 'working' }), 500)).not.toHaveProperty('statusMessage');
});
