/** @type {import('jest').Config} */
module.exports = {
  // Transpiled file by file, without type checking: `npm run lint` type-checks the whole tree,
  // and type-checking again in every jest worker cost a cold `npm test` 183 s instead of 141 s.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/machines', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/quiet-logs.ts'],
  testTimeout: 30000,
  // Integration tests share one Redis and bind ports; two workers keep the 2-core machine responsive.
  maxWorkers: 2,
};
