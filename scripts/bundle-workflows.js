#!/usr/bin/env node
// Bundles the workflows once at build time (dist/workflow-bundle.js), so a worker starts
// without running webpack. The worker falls back to bundling at start when it is missing.
'use strict';
const { bundleWorkflowCode } = require('@temporalio/worker');
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../dist/workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  fs.writeFileSync(path.join(__dirname, '..', 'dist', 'workflow-bundle.js'), code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
