/** Tests run TypeScript through swc; the ESM-only ext-tasks package is transformed too. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/test/faults/', '/test/cluster/'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(@modelcontextprotocol/ext-tasks|jose)/)'],
  // ext-tasks exports only an `import` condition; point jest's require at its files.
  // The package's own name (the examples and fixtures import it) is the source tree: the
  // in-process tier runs from src/, no build.
  moduleNameMapper: {
    '^@modelcontextprotocol/ext-tasks/(.*)$': '<rootDir>/node_modules/@modelcontextprotocol/ext-tasks/dist/$1/index.js',
    '^mcp-temporal-tasks$': '<rootDir>/src/index.ts',
    '^mcp-temporal-tasks/workflow$': '<rootDir>/src/workflows/index.ts',
    '^mcp-temporal-tasks/worker$': '<rootDir>/src/worker/index.ts',
    '^mcp-temporal-tasks/activity$': '<rootDir>/src/activities/index.ts',
  },
  // one Temporal dev server for the run (the in-process tier's stacks share it), stopped at the end
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  testTimeout: 120_000,
  maxWorkers: 1,
};
