import v8 from 'node:v8';
import vm from 'node:vm';

/** Growth of V8's heap since the last collection that counts as memory to give back. */
const SLACK_BYTES = 32 * 2 ** 20;

/**
 * V8 keeps the heap a burst of requests made it grow, and gives it back only after a later
 * collection; an idle process allocates too little to start one. Measured with
 * bench/serve-memory.js: `serve` still at 403 MB RSS a minute after 1,000 tasks were polled,
 * against 116 MB before. So every intervalMs, when V8 holds much more than after the last
 * collection, full collections run, and the memory comes back once the load has ended.
 */
export function releaseHeldMemory(intervalMs = 15_000): () => void {
  const release = heldMemoryReleaser();
  const timer = setInterval(() => void release(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A check to run now and then: collects (and resolves true) when V8 holds slackBytes more than
 * after the last time. Twice, a second apart: the first collection frees the objects, but
 * V8 releases a fragmented heap's pages only after the second has compacted them (measured:
 * 252 MB held for 14 MB live after one, 38 MB after two).
 */
export function heldMemoryReleaser(slackBytes = SLACK_BYTES): () => Promise<boolean> {
  const gc = exposeGc(); // now, before a worker creates the contexts its workflows run in
  let baseline = heldBytes();
  let running = false;
  return async () => {
    if (running || heldBytes() <= baseline + slackBytes) return false;
    running = true;
    gc();
    await new Promise((resolve) => setTimeout(resolve, 1000).unref());
    gc();
    baseline = heldBytes();
    running = false;
    return true;
  };
}

const heldBytes = () => v8.getHeapStatistics().total_heap_size;

let gc: (() => void) | undefined;

/** V8's gc(), taken from a fresh context: the flag is on only for that moment, so no other context sees it. */
function exposeGc(): () => void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
  }
  return gc;
}
