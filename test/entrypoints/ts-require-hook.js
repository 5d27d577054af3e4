// Lets the entry-point tests run `node -r <this> src/main.ts` without a build: each .ts file is
// transpiled (no type check) to CommonJS when required. Lua scripts and locales are found in the
// source tree, as under ts-jest.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      resolveJsonModule: true,
    },
  });
  module._compile(outputText, filename);
};
