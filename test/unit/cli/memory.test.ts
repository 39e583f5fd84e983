import vm from 'node:vm';
import { type Heap, heldMemoryReleaser, v8Heap } from '../../../src/cli/memory';

const MB = 2 ** 20;

/** A heap whose size and idleness the test sets. */
function fakeHeap(held: number) {
  const heap = { held, idle: true, collections: 0 };
  const api: Heap = {
    heldBytes: () => heap.held,
    idleSinceLastCall: () => heap.idle,
    collect: () => {
      heap.collections++;
      heap.held = 10 * MB;
    },
  };
  return { heap, api };
}

describe('heldMemoryReleaser', () => {
  it('collects twice once the process is idle and V8 holds more than the slack over the last floor; then not until it grows again', async () => {
    const { heap, api } = fakeHeap(40 * MB);
    const release = heldMemoryReleaser(32 * MB, api);
    expect(await release()).toBe(false); // nothing grew
    heap.held = 200 * MB; // a burst
    heap.idle = false;
    expect(await release()).toBe(false); // busy: left to V8
    expect(heap.collections).toBe(0);
    heap.idle = true;
    expect(await release()).toBe(true);
    expect(heap.collections).toBe(2);
    expect(await release()).toBe(false); // the floor is now 10 MB, and 10 MB is held
    heap.held = 40 * MB;
    expect(await release()).toBe(false); // within the slack
    heap.held = 43 * MB;
    expect(await release()).toBe(true);
  });

  it('runs one release at a time', async () => {
    const { heap, api } = fakeHeap(0);
    const release = heldMemoryReleaser(32 * MB, api);
    heap.held = 100 * MB;
    const [a, b] = await Promise.all([release(), release()]);
    expect([a, b]).toEqual([true, false]);
    expect(heap.collections).toBe(2);
  });
});

describe('v8Heap', () => {
  it('two collections a second apart give back what a burst made V8 hold', async () => {
    const heap = v8Heap();
    let burst: Array<{ i: number; s: string }> | undefined = Array.from({ length: 1_500_000 }, (_, i) => ({ i, s: `item ${i}` }));
    const survivors = burst.filter((_, i) => i % 20 === 0); // live objects on every page
    burst = undefined;
    const grown = heap.heldBytes();
    heap.collect();
    await new Promise((r) => setTimeout(r, 1000));
    heap.collect();
    expect(grown - heap.heldBytes()).toBeGreaterThan(32 * MB);
    expect(survivors).toHaveLength(75_000);
  });

  it('a busy event loop does not count as idle', () => {
    const heap = v8Heap();
    heap.idleSinceLastCall();
    const until = Date.now() + 200;
    while (Date.now() < until); // the loop is held
    expect(heap.idleSinceLastCall()).toBe(false);
  });

  it('does not expose gc() to the program or to other contexts', () => {
    v8Heap();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
