/** What the handles already told: per caller and task, bounded, the least recently told forgotten first. */
import { MAX_SAID_HANDLES, SaidHandles } from '../../../../src/mcp/task-handles/said-handles';

const said = { status: 'working', keys: [] };

test('per caller and task: another caller of the same task was told nothing', () => {
  const handles = new SaidHandles();
  handles.set('alice', 'task_A', said);
  expect(handles.get('alice', 'task_A')).toEqual(said);
  expect(handles.get('bob', 'task_A')).toBeUndefined();
  expect(handles.get(undefined, 'task_A')).toBeUndefined();
  handles.forget('alice', 'task_A');
  expect(handles.get('alice', 'task_A')).toBeUndefined();
});

test('bounded: past the bound the least recently told is forgotten (its next handle is a full one)', () => {
  const handles = new SaidHandles(3);
  for (const id of ['1', '2', '3']) handles.set(undefined, id, said);
  handles.set(undefined, '1', said); // told again: now the most recent
  handles.set(undefined, '4', said);
  expect(handles.size).toBe(3);
  expect(handles.get(undefined, '2')).toBeUndefined();
  expect(handles.get(undefined, '1')).toBeDefined();
  expect(MAX_SAID_HANDLES).toBe(10_000);
});
