// `npm run test:cluster`: the end-to-end suite on a local 3-master Redis Cluster the harness
// creates (test/support/redis-cluster.ts). Its files end in `.cluster.ts`: `npm test` skips them.
const base = require('../../jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/cluster'],
  testMatch: ['**/*.cluster.ts'],
  testTimeout: 120000,
  maxWorkers: 1,
};
