/**
 * npm run test:cluster: test/cluster/ against a Temporal cluster on PostgreSQL, one per file
 * (scripts/cluster). No dev server; the global setup builds the server once, outside the tests' timeouts.
 */
const base = require('./jest.config');
module.exports = {
  ...base,
  testMatch: ['**/cluster/**/*.test.ts'],
  testPathIgnorePatterns: [],
  globalSetup: '<rootDir>/test/cluster/global-setup.ts',
  globalTeardown: undefined,
  testTimeout: 300_000,
};
