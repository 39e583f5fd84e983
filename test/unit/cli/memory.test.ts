import v8 from 'node:v8';
import vm from 'node:vm';
import { heldMemoryReleaser } from '../../../src/cli/memory';

const held = () => v8.getHeapStatistics().total_heap_size;
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('heldMemoryReleaser', () => {
  it('leaves a busy process to V8, and gives back what a burst made V8 hold once it is idle', async () => {
    const release = heldMemoryReleaser();
    let burst: Array<{ i: number; s: string }> | undefined = Array.from({ length: 1_500_000 }, (_, i) => ({ i, s: `item ${i}` }));
    const survivors = burst.filter((_, i) => i % 20 === 0); // live objects on every page
    burst = undefined; // the burst is over; V8 still holds its heap
    expect(await release()).toBe(false); // the event loop was busy with the burst
    const grown = held();
    let released = false;
    for (let i = 0; i < 10 && !released; i++) {
      await idle(500); // (V8 may still be finishing its own work on the burst)
      released = await release();
    }
    expect(released).toBe(true);
    expect(grown - held()).toBeGreaterThan(64 * 2 ** 20);
    await idle(500);
    expect(await release()).toBe(false); // nothing grew since
    expect(survivors).toHaveLength(75_000);
  });

  it('does not expose gc() to the program or to other contexts', () => {
    heldMemoryReleaser();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
