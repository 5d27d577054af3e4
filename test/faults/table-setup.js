// Forget the rows of an earlier run: the table shows this run's figures only. Then the Redis and
// PostgreSQL every suite uses (test/global-setup.ts).
const { rmSync } = require('node:fs');
const path = require('node:path');
require('../entrypoints/ts-require-hook');

module.exports = async () => {
  rmSync(path.resolve(__dirname, '../../test-artifacts/faults'), { recursive: true, force: true });
  await require('../global-setup.ts').default();
};
