/** jest hooks of the support library: only test files load this module (benches and scripts never do). */
import { stopAll } from './processes';

/** After all tests of a file: stop every spawned process, then the file's Temporal dev server. */
export function stopAllAfter(temporal: () => { stop(): Promise<void> } | undefined): void {
  afterAll(async () => {
    await stopAll();
    await temporal()?.stop();
  });
}
