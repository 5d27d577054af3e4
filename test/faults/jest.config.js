// `npm run test:faults`: the fault suite, one file at a time (each runs its own Redis, sandbox,
// SMS provider and gateways). Its files end in `.faults.ts` so `npm test` never picks them up.
// The table of figures is printed and written to test-artifacts/faults.md at the end.
const base = require('../../jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.faults.ts'],
  globalSetup: '<rootDir>/test/faults/table-setup.js',
  globalTeardown: '<rootDir>/test/faults/table-teardown.js',
  testTimeout: 180000,
  maxWorkers: 1,
};
