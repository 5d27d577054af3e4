// Print the faults table and write test-artifacts/faults.md (the code is in table.ts), then stop
// what test/global-setup.ts started.
require('../entrypoints/ts-require-hook');

module.exports = async () => {
  require('./table.ts').printTable();
  await require('../global-teardown.ts').default();
};
