// Forget the rows of an earlier run: the table shows this run's figures only.
const { rmSync } = require('node:fs');
const path = require('node:path');

module.exports = () =>
  rmSync(path.resolve(__dirname, '../../test-artifacts/faults'), { recursive: true, force: true });
