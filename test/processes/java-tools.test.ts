/**
 * Workflows in Java as MCP task tools (issue 36): a Temporal Java worker (examples/java/, built by
 * scripts/java-examples.ts with Maven into the git-ignored examples/java/target/) runs the example
 * tools through the Java contract helper (examples/java/src/main/java/mcptasks); `serve` exposes
 * examples/java/tools.json.
 */
import path from 'node:path';
import { contractToolSuite } from '../support/contract-tools';
import { spawnProcess } from '../support/processes';
import fs from 'node:fs';
import { ensureJavaWorker, JAVA_DIR, JAVA_MAIN, runMaven } from '../../scripts/java-examples';

let classpath = '';

contractToolSuite({
  lang: 'java',
  toolsFile: path.join(JAVA_DIR, 'tools.json'),
  prepare: () => {
    const started = Date.now();
    classpath = ensureJavaWorker({ log: (m) => console.log(m) });
    console.log(`java worker ready in ${Date.now() - started} ms`);
  },
  startWorker: async (address, ledger) => {
    const worker = spawnProcess('java', ['-cp', classpath, JAVA_MAIN], {
      cwd: JAVA_DIR,
      env: { TEMPORAL_ADDRESS: address, LEDGER_FILE: ledger },
      name: 'the Java worker',
    });
    await worker.waitFor(/java worker polling task queue java-tools/, 60_000);
    return worker;
  },
});

test("the Java contract helper's own unit test passes (Temporal's in-memory test server)", () => {
  runMaven(['test']); // throws with Maven's output when a test fails
  const report = (suite: string) =>
    fs.readFileSync(path.join(JAVA_DIR, 'target', 'surefire-reports', `TEST-mcptasks.${suite}.xml`), 'utf8');
  expect(report('McpTaskTest')).toMatch(/tests="8" errors="0" skipped="0" failures="0"/);
  expect(report('ClaimGuardTest')).toMatch(/tests="5" errors="0" skipped="0" failures="0"/);
  // every recorded history replays (one test per file, and one that both helpers' runs are there)
  const histories = fs.readdirSync(path.join(JAVA_DIR, 'src', 'test', 'resources', 'histories')).filter((f) => f.endsWith('.json'));
  expect(report('ReplayTest')).toMatch(new RegExp(`tests="${histories.length + 1}" errors="0" skipped="0" failures="0"`));
}, 600_000);
