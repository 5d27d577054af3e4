// Lets the entry-point tests run `node -r <this> src/main.ts` without a build: each .ts file is
// transpiled (no type check) to CommonJS when required. Lua scripts and locales are found in the
// source tree, as under ts-jest.
//
// The tests start dozens of processes: each transpiled file is kept in the OS temp folder under
// the hash of its source (and of this hook and the compiler's version), so only the first process loads the compiler.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CACHE = path.join(os.tmpdir(), 'gateway-ts-hook');
// Another hook or compiler version transpiles afresh.
const VERSION = `${require('typescript/package.json').version}\n${fs.readFileSync(__filename, 'utf8')}`;
let ts;

function transpile(source, filename) {
  ts ??= require('typescript');
  return ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      resolveJsonModule: true,
    },
  }).outputText;
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
