import fs from 'node:fs';
import path from 'node:path';

/**
 * The layers of docs/architecture.md, read from the code's own imports: no two top-level folders
 * import each other (nor through a third), `machines/` is imported only by the composition root,
 * no domain or infrastructure folder imports a channel, and the hop engine imports neither an
 * aggregator nor a machine. Test files (and the machines' test kit) are left out: a test may
 * reach anywhere.
 */

const ROOT = path.resolve(__dirname, '../..');
const IMPORT = /(?:from|import\(|require\()\s*['"](\.{1,2}\/[^'"]*)['"]/g;

function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sources(rel));
    else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|^test-(kit|scripts)\.ts$/.test(entry.name))
      found.push(rel);
  }
  return found;
}

/** `file`'s relative imports, as repository paths of the files they name. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const targets: string[] = [];
  for (const [, spec] of text.matchAll(IMPORT)) {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const target = [`${base}.ts`, `${base}/index.ts`, base].find((f) => fs.existsSync(path.join(ROOT, f)));
    if (target && fs.statSync(path.join(ROOT, target)).isFile()) targets.push(target);
  }
  return targets;
}

/** The top-level folder a file is in: `src/<folder>`, `machines`, or `src` for the entry points. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return parts[0];
  return parts.length === 2 ? 'src' : `src/${parts[1]}`;
}

const edges: { from: string; to: string }[] = [...sources('src'), ...sources('machines')].flatMap((from) =>
  importsOf(from).map((to) => ({ from, to })),
);

/** Folder → the folders it imports, each with one import that shows it. */
const folderGraph = new Map<string, Map<string, string>>();
for (const { from, to } of edges) {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) continue;
  if (!folderGraph.has(a)) folderGraph.set(a, new Map());
  if (!folderGraph.get(a)!.has(b)) folderGraph.get(a)!.set(b, `${from} -> ${to}`);
}

/** Each import that closes a cycle of folders, with the path that leads back (depth-first search). */
function cycles(): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (folder: string) => {
    state.set(folder, 'open');
    for (const [next, shown] of folderGraph.get(folder) ?? []) {
      if (state.get(next) === 'open') found.push([...trail, shown].join('; '));
      else if (!state.has(next)) {
        trail.push(shown);
        visit(next);
        trail.pop();
      }
    }
    state.set(folder, 'done');
  };
  for (const folder of folderGraph.keys()) if (!state.has(folder)) visit(folder);
  return found;
}

it('reads the code: the folders import one another', () => {
  expect(folderGraph.size).toBeGreaterThan(10);
  expect(folderGraph.get('src/gateway')?.has('machines')).toBe(true);
});

it('no two top-level folders import each other, directly or through others', () => {
  expect(cycles()).toEqual([]);
});

it('machines/ is imported only by the composition root', () => {
  const importers = edges
    .filter(({ from, to }) => folderOf(to) === 'machines' && folderOf(from) !== 'machines')
    .filter(({ from }) => folderOf(from) !== 'src/gateway')
    .map(({ from, to }) => `${from} -> ${to}`);
  expect(importers).toEqual([]);
});

it('no domain or infrastructure folder imports a channel; the hop engine imports no aggregator and no machine', () => {
  const CHANNELS = ['src/ussd', 'src/sms'];
  // Above the channels: the entry points and wiring, the machines they drive, the dev pages.
  const ABOVE = new Set([
    'src',
    'src/cli',
    'src/gateway',
    'src/config',
    'machines',
    'src/simulator',
    ...CHANNELS,
  ]);
  const wrong = edges
    .filter(({ from, to }) => CHANNELS.includes(folderOf(to)) && !ABOVE.has(folderOf(from)))
    .map(({ from, to }) => `${from} -> ${to}`);
  const engine = edges
    .filter(({ from }) => from.startsWith('src/ussd/engine/'))
    .filter(({ to }) => to.startsWith('src/ussd/aggregators/') || folderOf(to) === 'machines')
    .map(({ from, to }) => `${from} -> ${to}`);
  expect([...wrong, ...engine]).toEqual([]);
});
