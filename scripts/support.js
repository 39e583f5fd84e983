'use strict';
/**
 * The support library (test/support, compiled into build/test/support by `npm run build`) as
 * plain node (scripts and benches) requires it: one MCP client for both protocol generations,
 * processes by pid, the dev server, the process stack, waits and the effects ledger, the same
 * modules the tests import as TypeScript. (Not for install-temporal-cli.js: it runs before any build.)
 */
const path = require('node:path');

const BUILT = path.join(__dirname, '..', 'build', 'test', 'support');
const load = (name) => {
  try {
    return require(path.join(BUILT, name));
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && err.message.includes(BUILT)) throw new Error(`${BUILT}/${name}.js is missing: run \`npm run build\` first`);
    throw err;
  }
};

module.exports = {
  ...load('paths'),
  ...load('ports'),
  ...load('processes'),
  ...load('temporal'),
  ...load('servers'),
  ...load('wait'),
  ...load('ledger'),
  ...load('mcp-client'),
};
