/** Pacing of describes for tasks the server does not know. */
import { MissPacing } from '../../../src/tasks/miss-pacing';

test('miss pacing: no floor until enough describes, then their 95th percentile', () => {
  const p = new MissPacing();
  for (let i = 0; i < 10; i++) p.record(5);
  expect(p.floorMs()).toBe(0);
  for (let i = 1; i <= 100; i++) p.record(i);
  expect(p.floorMs()).toBeGreaterThanOrEqual(90);
});
