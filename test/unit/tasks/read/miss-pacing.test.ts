/** Pacing of describes for tasks the server does not know. */
import { MissPacing } from '../../../../src/tasks/read/miss-pacing';

test('miss pacing: no floor until enough describes, then their 95th percentile', () => {
  const p = new MissPacing();
  for (let i = 0; i < 10; i++) p.record(5);
  expect(p.floorMs()).toBe(0);
  for (let i = 1; i <= 100; i++) p.record(i);
  expect(p.floorMs()).toBeGreaterThanOrEqual(90);
});

test('the floor follows the last 256 describes and never exceeds 1 s', () => {
  const p = new MissPacing();
  for (let i = 0; i < 16; i++) p.record(5_000);
  expect(p.floorMs()).toBe(1_000); // Temporal was slow: capped
  for (let i = 0; i < 256; i++) p.record(20);
  expect(p.floorMs()).toBe(20); // the slow ones left the window
  for (let i = 0; i < 12; i++) p.record(400); // under 5 % of the window: the slowest few do not set it
  expect(p.floorMs()).toBe(20);
  p.record(400); // one more and they are the 95th percentile
  expect(p.floorMs()).toBe(400);
});

test("once enough describes found a workflow, they alone set the floor (a foreign task's answer takes one of those)", () => {
  const p = new MissPacing();
  for (let i = 0; i < 200; i++) p.record(1, false); // Temporal answers an unknown id fast
  for (let i = 0; i < 8; i++) p.record(4);
  expect(p.floorMs()).toBe(1); // 8 found of 208: too few to count alone, and under 5 % of all
  for (let i = 0; i < 8; i++) p.record(4);
  expect(p.floorMs()).toBe(4); // 16 found: the misses no longer drag the floor down
  for (let i = 0; i < 100; i++) p.record(1, false);
  expect(p.floorMs()).toBe(4);
});

test('pad waits until the floor after the start, and not at all once it has passed', async () => {
  const p = new MissPacing();
  for (let i = 0; i < 20; i++) p.record(80);
  let started = performance.now();
  await p.pad(started);
  expect(performance.now() - started).toBeGreaterThanOrEqual(79);
  started = performance.now() - 500; // the describe itself already took longer than the floor
  // no timer at all: it settles before a zero-delay timer could fire (not a wall-clock bound, which a busy machine breaks)
  const first = await Promise.race([
    p.pad(started).then(() => 'padded'),
    new Promise((r) => setTimeout(() => r('a timer fired first'), 0)),
  ]);
  expect(first).toBe('padded');
});
