/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/machines', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/quiet-logs.ts'],
  testTimeout: 30000,
  // Integration tests share one Redis and bind ports; two workers keep the 2-core machine responsive.
  maxWorkers: 2,
};
