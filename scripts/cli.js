// `npm run cli -- <command>`: runs the operator CLI from the last build (dist/), and builds
// first (`tsc -p tsconfig.build.json`, then copy-assets) only when a source is newer than that
// build, so `--help` or a lookup answers in about a second instead of a full build's 10–15 s.
// `npm run build` is unchanged and always builds.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'src', 'cli', 'main.js');
// What the build reads: the compiled folders (tsconfig.build.json's include), the assets
// copy-assets takes, and the build's own settings.
const SOURCES = ['src', 'machines', 'bench', 'locales'];
const SETTINGS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/copy-assets.js',
];

/** Newest modification time under `target` (folders count: a deleted or renamed file changes its folder). */
function newest(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  let time = stat.mtimeMs;
  if (stat.isDirectory())
    for (const name of fs.readdirSync(target)) time = Math.max(time, newest(path.join(target, name)));
  return time;
}

function builtAt() {
  try {
    return fs.statSync(entry).mtimeMs;
  } catch {
    return 0;
  }
}

const sourcesAt = Math.max(...[...SOURCES, ...SETTINGS].map((name) => newest(path.join(root, name))));

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (builtAt() === 0 || sourcesAt > builtAt()) {
  process.stderr.write('cli: sources changed since the last build: building (npm run build)…\n');
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const status =
    run([tsc, '-p', 'tsconfig.build.json']) || run([path.join(root, 'scripts', 'copy-assets.js')]);
  if (status !== 0) {
    // tsc writes its output even with type errors: mark it stale, so the next call builds again.
    if (builtAt() !== 0) fs.utimesSync(entry, new Date(0), new Date(0));
    process.exit(status);
  }
  // The build is of the sources as they were (some may carry a time ahead of this clock);
  // a millisecond on, as file times are finer than the milliseconds a Date holds.
  const done = (Math.ceil(Math.max(Date.now(), sourcesAt)) + 1) / 1000;
  fs.utimesSync(entry, done, done);
}

// The CLI in a process of its own (npm runs scripts in the package's folder, as before).
const cli = spawnSync(process.execPath, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
if (cli.error) throw cli.error;
process.exit(cli.status ?? (cli.signal ? 1 : 0));
