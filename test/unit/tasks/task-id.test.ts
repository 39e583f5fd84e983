/** Task ids: minted with 192 random bits, validated. */
import { isTaskId, mintTaskId } from '../../../src/tasks/task-id';

test('task ids carry 192 random bits, URL-safe, and validate', () => {
  const ids = new Set(Array.from({ length: 1000 }, mintTaskId));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(isTaskId(id)).toBe(true);
  expect(Buffer.from([...ids][0].slice(5), 'base64url')).toHaveLength(24);
});

test.each([
  undefined,
  42,
  '',
  'task_',
  'task_short',
  `task_${'A'.repeat(33)}`,
  'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/',
  'TASK_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
])('isTaskId rejects %p', (value) => expect(isTaskId(value)).toBe(false));
