import fs from 'node:fs';
import path from 'node:path';

/**
 * The files the documentation names exist: every file or folder named in a table of a folder
 * README or a docs/ page (`store.ts`, `inbound/adapters.ts`, `src/records/migrations/`), and the
 * target of every relative link in them and in the root README. A file renamed or deleted
 * without its README row fails here.
 */

const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', 'data', 'test-artifacts', '.git', 'coverage']);
/** Files the documentation may name that a fresh clone does not have yet: outputs of runs. */
const GENERATED = [/^test-artifacts\//, /^dist\//, /^data\//];
const FILE_LIKE = /^[\w.-]+(\/[\w.-]+)*(\.(ts|js|mjs|cjs|lua|sql|json|md|html|css|png|sh|ya?ml)|\/)$/;

function readmesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...readmesUnder(full));
    else if (entry.name === 'README.md' && dir !== ROOT) found.push(full);
  }
  return found;
}

/** Every file of `dir` (recursively) with the name `base`. */
function existsBelow(dir: string, base: string): boolean {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    if (entry.name === base.replace(/\/$/, '')) return true;
    if (entry.isDirectory() && existsBelow(path.join(dir, entry.name), base)) return true;
  }
  return false;
}

const exists = (file: string) => fs.existsSync(file);

/** `dir` and its parents up to the repository's root (`observability/metrics.ts` written from src/gateway/). */
function ancestors(dir: string): string[] {
  const folders = [dir];
  while (folders.at(-1) !== ROOT && path.dirname(folders.at(-1)!) !== folders.at(-1))
    folders.push(path.dirname(folders.at(-1)!));
  return folders;
}

/**
 * What `markdown` (the file at `mdPath`) names that is not there: table cells' file-like code
 * spans, resolved from the file's folder or one of its parents; a bare name also in a folder
 * the same row names, or anywhere below the file's folder. Relative links from anywhere.
 */
function missingNames(mdPath: string, markdown: string): string[] {
  const dir = path.dirname(mdPath);
  const missing: string[] = [];
  const generated = (name: string) => GENERATED.some((re) => re.test(name));
  for (const line of markdown.split('\n')) {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const file = decodeURIComponent(target.split('#')[0]);
      if (!exists(path.resolve(dir, file))) missing.push(target);
    }
    if (!line.trimStart().startsWith('|') || mdPath === path.join(ROOT, 'README.md')) continue;
    const names = [...line.matchAll(/`([^`]+)`/g)].map(([, name]) => name).filter((n) => FILE_LIKE.test(n));
    const rowFolders = names
      .map((name) => (name.endsWith('/') ? name : name.includes('/') ? path.dirname(name) : null))
      .filter((folder): folder is string => folder !== null);
    for (const name of names) {
      if (generated(name)) continue;
      const found = name.includes('/')
        ? ancestors(dir).some((folder) => exists(path.resolve(folder, name)))
        : exists(path.resolve(dir, name)) ||
          rowFolders.some((folder) => exists(path.resolve(dir, folder, name))) ||
          existsBelow(dir, name);
      if (!found) missing.push(name);
    }
  }
  return missing;
}

const docsDir = path.join(ROOT, 'docs');
const pages = [
  ...readmesUnder(ROOT),
  ...fs
    .readdirSync(docsDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(docsDir, name)),
  path.join(ROOT, 'README.md'),
].map((file) => path.relative(ROOT, file));

describe('the files the documentation names exist', () => {
  it('finds the folder READMEs and the docs pages', () => {
    expect(pages).toEqual(
      expect.arrayContaining(['src/sales/README.md', 'docs/architecture.md', 'README.md']),
    );
  });

  it.each(pages)('%s', (page) => {
    const full = path.join(ROOT, page);
    expect(missingNames(full, fs.readFileSync(full, 'utf8'))).toEqual([]);
  });

  it('reports a row naming a file that is gone, and a broken link', () => {
    const readme = path.join(ROOT, 'src/sales/README.md');
    const text = [
      '| file | job |',
      '| `buy.ts` | the Buy |',
      '| `settlement.ts` | moved to agent-side.ts |',
      '| `store/` | `store.ts`, `gone.ts` |',
      'See [the desk](../purchases/desk.ts) and [nothing](../purchases/nothing.ts).',
    ].join('\n');
    expect(missingNames(readme, text)).toEqual([
      'settlement.ts',
      'store/',
      'store.ts',
      'gone.ts',
      '../purchases/nothing.ts',
    ]);
  });
});
