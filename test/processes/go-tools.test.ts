/**
 * Workflows in Go as MCP task tools (issue 36): a Temporal Go worker (examples/go/, built by
 * scripts/go-examples.ts into the git-ignored examples/go/bin/) runs the example tools through
 * the Go contract helper (examples/go/mcptasks); `serve` exposes examples/go/tools.json.
 */
import path from 'node:path';
import { contractToolSuite } from '../support/contract-tools';
import { spawnProcess } from '../support/processes';
import { ensureGoWorker, GO_DIR, runGo } from '../../scripts/go-examples';

let binary = '';

contractToolSuite({
  lang: 'go',
  toolsFile: path.join(GO_DIR, 'tools.json'),
  prepare: () => {
    const started = Date.now();
    binary = ensureGoWorker();
    console.log(`go worker built in ${Date.now() - started} ms`);
  },
  startWorker: async (address, ledger) => {
    const worker = spawnProcess(binary, [], {
      cwd: GO_DIR,
      env: { TEMPORAL_ADDRESS: address, LEDGER_FILE: ledger },
      name: 'the Go worker',
    });
    await worker.waitFor(/go worker polling task queue go-tools/);
    return worker;
  },
});

test("the Go contract helper's own unit test passes, and the recorded Go histories replay", () => {
  const output = runGo(['test', './...']);
  expect(output).toMatch(/ok\s+github.com\/mcp-temporal-tasks\/examples\/go\/mcptasks/);
  // and the recorded histories (examples/go/tools/testdata/histories) replay with the helper as it is now
  expect(output).toMatch(/ok\s+github.com\/mcp-temporal-tasks\/examples\/go\/tools/);
}, 600_000);
