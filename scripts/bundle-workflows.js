#!/usr/bin/env node
// Plain JS, not TypeScript: the build's own last step, run in the Docker build too (which compiles no scripts).
// Bundles workflows once at build time (`<workflows>.bundle.js` beside each), so a CLI worker
// starts without running webpack; McpTasksPlugin adds the task runtime's interceptor and checks
// that every tool's workflow is there. A worker bundles at start when a bundle is missing.
// (test fixtures and benches are absent from the Docker build, so modules that were not compiled are skipped)
'use strict';
const { bundleWorkflowCode } = require('@temporalio/worker');
const fs = require('node:fs');
const path = require('node:path');
const { McpTasksPlugin } = require('../dist/worker/index.js');

const MODULES = [
  'build/examples/demo/index.js',
  'build/bench/tools/index.js',
  'build/test/fixtures/conformance/index.js',
  'build/test/fixtures/index.js',
];
const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };

async function main() {
  for (const file of MODULES.filter((f) => fs.existsSync(path.resolve(__dirname, '..', f)))) {
    const { tools, workflowsPath } = require(path.resolve(__dirname, '..', file));
    const { code } = await bundleWorkflowCode({ workflowsPath, plugins: [new McpTasksPlugin({ tools })], logger: quiet });
    fs.writeFileSync(workflowsPath.replace(/\.js$/, '.bundle.js'), code);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
