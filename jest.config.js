/** @type {import('jest').Config} */
module.exports = {
  // Transpiled file by file by sucrase, without type checking (`npm run lint` type-checks the
  // whole tree). Cold, one end-to-end file cost 13.8 s of CPU with TypeScript's compiler (ts-jest)
  // and 6.2 s with sucrase (4.4 s with the transforms cached). `import()` stays a require, as
  // TypeScript's CommonJS output had it.
  transform: { '^.+\\.ts$': ['@sucrase/jest-plugin', { preserveDynamicImport: false }] },
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/machines', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/quiet-logs.ts'],
  // The Redis and PostgreSQL the tests use: the ones answering, else private ones for the run.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  // Most of a file's time is waiting on Redis, PostgreSQL, sandboxes and child processes: three
  // workers keep the 2 cores busy. A worker's heap grows with every file that loads the gateway,
  // and its collection costs CPU: past 700 MB the worker is replaced. Warm runs here, both with
  // the limit: 315 s with two workers, 271 s with three.
  maxWorkers: 3,
  workerIdleMemoryLimit: '700MB',
};
