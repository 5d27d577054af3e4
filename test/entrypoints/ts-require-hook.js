// Lets the entry-point tests run `node -r <this> src/main.ts` without a build: each .ts file is
// transpiled (no type check) to CommonJS when required, by sucrase as under jest. Lua scripts and
// locales are found in the source tree, as under jest.
//
// The tests start dozens of processes: each transpiled file is kept in the OS temp folder under
// the hash of its source (and of this hook and the transpiler's version): a process whose files
// are all there never loads the transpiler.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CACHE = path.join(os.tmpdir(), 'gateway-ts-hook');
// Another hook or transpiler version transpiles afresh.
const VERSION = `${require('sucrase/package.json').version}\n${fs.readFileSync(__filename, 'utf8')}`;

let sucrase;

function transpile(source, filename) {
  sucrase ??= require('sucrase');
  // The transforms jest's sucrase plugin applies; modern syntax (class fields, ?.) is left as written.
  return sucrase.transform(source, {
    transforms: ['typescript', 'imports'],
    disableESTransforms: true,
    filePath: filename,
  }).code;
}

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha256').update(VERSION).update(filename).update(source).digest('hex');
  const cached = path.join(CACHE, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = transpile(source, filename);
    // Written aside and renamed: a process starting alongside reads a whole file or none.
    fs.mkdirSync(CACHE, { recursive: true });
    const partial = `${cached}.${process.pid}`;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
  }
  module._compile(output, filename);
};
