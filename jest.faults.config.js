const base = require('./jest.config');
module.exports = { ...base, testMatch: ['**/faults/**/*.test.ts'], testPathIgnorePatterns: [], testTimeout: 300_000 };
