import v8 from 'node:v8';
import vm from 'node:vm';
import { heldMemoryReleaser } from '../../src/cli/memory';

const held = () => v8.getHeapStatistics().total_heap_size;

describe('heldMemoryReleaser', () => {
  it('collects once the heap grew past the slack, and a fragmented heap comes back', async () => {
    const release = heldMemoryReleaser();
    expect(await release()).toBe(false); // nothing grew yet
    let burst: Array<{ i: number; s: string }> | undefined = Array.from({ length: 1_500_000 }, (_, i) => ({ i, s: `item ${i}` }));
    const survivors = burst.filter((_, i) => i % 20 === 0); // live objects on every page
    const grown = held();
    burst = undefined; // the burst is over; V8 still holds its heap
    expect(await release()).toBe(true);
    expect(grown - held()).toBeGreaterThan(64 * 2 ** 20);
    expect(await release()).toBe(false); // the new baseline is the heap after the collections
    expect(survivors).toHaveLength(75_000);
  });

  it('does not expose gc() to the program or to other contexts', () => {
    heldMemoryReleaser();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
