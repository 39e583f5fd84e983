import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { type Heap, heldMemoryReleaser, limitWorkflowSemiSpace, v8Heap } from '../../../src/cli/memory';
import { YOUNG_GENERATION_PROBE } from '../../support/paths';

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
    const release = heldMemoryReleaser(16 * MB, api);
    expect(await release()).toBe(true); // the first idle check learns the floor
    expect(heap.collections).toBe(2);
    expect(await release()).toBe(false); // nothing grew
    heap.held = 200 * MB; // a burst
    heap.idle = false;
    expect(await release()).toBe(false); // busy: left to V8
    expect(heap.collections).toBe(2);
    heap.idle = true;
    expect(await release()).toBe(true);
    expect(heap.collections).toBe(4);
    expect(await release()).toBe(false); // the floor is now 10 MB, and 10 MB is held
    heap.held = 26 * MB;
    expect(await release()).toBe(false); // within the slack
    heap.held = 27 * MB;
    expect(await release()).toBe(true);
  });

  it('does not collect at a busy start: the floor waits for the first idle check', async () => {
    const { heap, api } = fakeHeap(80 * MB); // loading the program grew the heap
    heap.idle = false;
    const release = heldMemoryReleaser(16 * MB, api);
    expect(await release()).toBe(false);
    expect(heap.collections).toBe(0);
    heap.idle = true;
    expect(await release()).toBe(true);
    expect(heap.held).toBe(10 * MB);
  });

  it('runs one release at a time', async () => {
    const { heap, api } = fakeHeap(0);
    const release = heldMemoryReleaser(16 * MB, api);
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

/** The young generation (MB) a new worker thread's V8 holds right after a burst of short-lived objects. */
function youngGenerationAfterBurst(): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(YOUNG_GENERATION_PROBE, { workerData: { reply: true } });
    worker.once('message', (mb: number) => void worker.terminate().then(() => resolve(mb)));
    worker.once('error', reject);
  });
}

describe('limitWorkflowSemiSpace', () => {
  afterEach(() => v8.setFlagsFromString('--max-semi-space-size=0')); // V8's own choice again

  it('caps the young generation of the threads started after it', async () => {
    limitWorkflowSemiSpace(2);
    expect(await youngGenerationAfterBurst()).toBeLessThanOrEqual(4); // two semi-spaces of 2 MB
  }, 30_000);

  it('0 leaves it to V8, which lets the same burst grow it far past that', async () => {
    limitWorkflowSemiSpace(0);
    expect(await youngGenerationAfterBurst()).toBeGreaterThan(8);
  }, 30_000);
});
