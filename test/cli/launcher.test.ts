import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * `npm run cli` (scripts/cli.js) builds only when a source is newer than the last build, and
 * otherwise runs the built CLI at once (#27 item 4: it used to build on every call). Run on a
 * project of its own in a temporary folder, laid out like this one, so nothing here is touched.
 */

const ROOT = path.resolve(__dirname, '../..');
let project: string;

const MAIN = (word: string) =>
  `const args: string[] = process.argv.slice(2);\n` +
  `process.stdout.write(JSON.stringify({ ${word}: args }) + '\\n');\n` +
  `process.exitCode = args.includes('fail') ? 3 : 0;\n`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  writeFileSync(path.join(project, file), text);
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'cli-launcher-'));
  mkdirSync(path.join(project, 'scripts'));
  for (const script of ['cli.js', 'copy-assets.js'])
    copyFileSync(path.join(ROOT, 'scripts', script), path.join(project, 'scripts', script));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        outDir: 'dist',
        rootDir: '.',
        strict: true,
        // Type errors in the sources still fail the build. The CLI stand-in needs three names of
        // node's (declared in src/node.d.ts), not @types/node nor the DOM's types a bare target
        // brings: parsing those was ~2.3 s of a 3.3 s build, and there are five builds.
        lib: ['ES2022'],
        types: [],
        skipLibCheck: true,
      },
    }),
  );
  write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', include: ['src'] }));
  write(
    'src/node.d.ts',
    'declare const process: { argv: string[]; stdout: { write(text: string): void }; exitCode?: number };\n',
  );
  write('src/cli/main.ts', MAIN('first'));
  write('locales/en.json', '{}');
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

function launch(...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(project, 'scripts/cli.js'), ...args], {
    cwd: project,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, built: result.stderr.includes('building') };
}

it('builds when there is no build, then runs from it without building again', () => {
  expect(launch('check', '--json')).toEqual({
    code: 0,
    stdout: '{"first":["check","--json"]}\n',
    built: true,
  });
  expect(launch('--help')).toEqual({ code: 0, stdout: '{"first":["--help"]}\n', built: false });
  // The CLI's exit code is the launcher's.
  expect(launch('fail')).toMatchObject({ code: 3, built: false });
}, 120_000);

it('builds again when a source or an asset changed since the build', () => {
  const later = new Date(Date.now() + 60_000);
  write('src/cli/main.ts', MAIN('second'));
  utimesSync(path.join(project, 'src/cli/main.ts'), later, later);
  expect(launch('x')).toEqual({ code: 0, stdout: '{"second":["x"]}\n', built: true });
  expect(launch('x').built).toBe(false);

  const evenLater = new Date(Date.now() + 120_000);
  utimesSync(path.join(project, 'locales/en.json'), evenLater, evenLater);
  expect(launch('x').built).toBe(true);
}, 120_000);

it('a build that fails stops with its exit code, and the next call builds again', () => {
  const later = new Date(Date.now() + 180_000);
  write('src/cli/main.ts', `const n: number = 'not a number';\n${MAIN('third')}`);
  utimesSync(path.join(project, 'src/cli/main.ts'), later, later);
  const failed = launch('x');
  expect(failed.code).not.toBe(0);
  expect(failed.stdout).toContain('not assignable');
  expect(launch('x')).toMatchObject({ built: true });
  expect(launch('x').code).not.toBe(0);
}, 120_000);
