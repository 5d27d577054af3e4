// Print the faults table and write test-artifacts/faults.md (the code is in table.ts).
require('../entrypoints/ts-require-hook');

module.exports = () => require('./table.ts').printTable();
