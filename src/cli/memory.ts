import v8 from 'node:v8';
import { performance } from 'node:perf_hooks';
import vm from 'node:vm';

/**
 * V8 may hold this much more than after the last release before an idle process collects. A
 * worker's main thread ends a load 36–40 MB over its floor (its young generation back at V8's
 * 32 MB, 2 semi-spaces of 16, and a few MB of old space; bench:peer's poll load): a slack of
 * 32 MB would let some loads' memory stay.
 */
const SLACK_BYTES = 16 * 2 ** 20;
/** Below this share of the last interval spent in the event loop, the process counts as idle. */
const IDLE_UTILIZATION = 0.05;

/**
 * V8 keeps the heap a burst of requests made it grow, and gives it back only after a later
 * collection; an idle process allocates too little to start one. Measured with
 * bench/serve-memory.ts: `serve` still at 403 MB RSS a minute after 1,000 tasks were polled,
 * against 116 MB before. So every intervalMs, once the process is idle and V8 holds much more
 * than after the last release, full collections run and the memory comes back.
 */
export function releaseHeldMemory(intervalMs = 10_000): () => void {
  const release = heldMemoryReleaser();
  const timer = setInterval(() => void release(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * How far past what its last full collection kept V8 lets a heap grow before the next one, in
 * percent; 0 leaves it to V8, which under load lets it reach 4× the live objects. Measured with
 * bench/serve-memory.ts (1,000 live tasks polled every 1 s): `serve` peaked at 417 MB with V8
 * holding 337 MB for 76 MB live; at 30 %, 208 MB holding 134 MB for 69 MB. Process-wide: it
 * holds for the workflow threads of a worker too. Read by V8 at every collection, so it can be
 * set after start, unlike the heap's other limits (flags on Node's command line).
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * The largest semi-space (MB) of V8's young generation in the workflow threads a worker starts
 * after this call; 0 leaves it to V8 (16). Under load each thread's young generation grows to 2
 * semi-spaces and stays there until V8's memory reducer runs, 25–35 s after the load
 * (bench:peer's poll load, worker threads' V8 statistics). The CLI's releaser reaches only the
 * main thread; a workflow thread's young generation is sized when the thread starts, from this
 * process-wide flag (the main thread's was sized at Node's start and does not change).
 */
export function limitWorkflowSemiSpace(mb: number): void {
  if (mb > 0) v8.setFlagsFromString(`--max-semi-space-size=${mb}`);
}

/** What the releaser reads and does; v8Heap() in production, a fake in tests. */
export interface Heap {
  /** Bytes V8 holds for the heap. */
  heldBytes(): number;
  /** Whether the event loop was idle since the last call. */
  idleSinceLastCall(): boolean;
  /** A full collection. */
  collect(): void;
}

/**
 * A check to run now and then: collects (and resolves true) when the process was idle since
 * the last check and V8 holds slackBytes more than after the last release; the first idle check
 * releases, so the floor is what an idle process holds, not what loading the program left.
 * Under load V8 collects on its own; it is the quiet after the load that it leaves alone.
 * Twice, a second apart: the first collection frees the objects, but V8 releases a fragmented
 * heap's pages only after the second has compacted them (measured: 252 MB held for 14 MB live
 * after one, 38 MB after two).
 */
export function heldMemoryReleaser(slackBytes = SLACK_BYTES, heap: Heap = v8Heap()): () => Promise<boolean> {
  let floor: number | undefined;
  let running = false;
  return async () => {
    const idle = heap.idleSinceLastCall();
    if (running || !idle || (floor !== undefined && heap.heldBytes() <= floor + slackBytes)) return false;
    running = true;
    heap.collect();
    await new Promise((resolve) => setTimeout(resolve, 1000).unref());
    heap.collect();
    floor = heap.heldBytes();
    heap.idleSinceLastCall(); // the collections are not load
    running = false;
    return true;
  };
}

/** This process's V8 heap; gc() is taken now, before a worker creates the contexts its workflows run in. */
export function v8Heap(): Heap {
  const gc = exposeGc();
  let since = performance.eventLoopUtilization();
  return {
    heldBytes,
    idleSinceLastCall() {
      const busy = performance.eventLoopUtilization(since).utilization > IDLE_UTILIZATION;
      since = performance.eventLoopUtilization();
      return !busy;
    },
    collect: gc,
  };
}

const heldBytes = () => v8.getHeapStatistics().total_heap_size;

let exposedGc: (() => void) | undefined;

/** V8's gc(), taken from a fresh context: the flag is on only for that moment, so no other context sees it. */
function exposeGc(): () => void {
  if (!exposedGc) {
    v8.setFlagsFromString('--expose-gc');
    exposedGc = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
  }
  return exposedGc;
}
