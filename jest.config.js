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
  testTimeout: 30000,
  // Integration tests share one Redis and bind ports; two workers keep the 2-core machine responsive.
  maxWorkers: 2,
};
