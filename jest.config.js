/** Tests run TypeScript through swc; the ESM-only ext-tasks package is transformed too. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/test/faults/'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(@modelcontextprotocol/ext-tasks|jose)/)'],
  // ext-tasks exports only an `import` condition; point jest's require at its files.
  moduleNameMapper: { '^@modelcontextprotocol/ext-tasks/(.*)$': '<rootDir>/node_modules/@modelcontextprotocol/ext-tasks/dist/$1/index.js' },
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 120_000,
  maxWorkers: 1,
};
