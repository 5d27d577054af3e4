// Copies the non-TypeScript files the compiled code reads at run time (Lua scripts and SQL migrations next to
// their modules, the locale catalogues) into dist/, so `node dist/...` finds them where
// jest finds them in the source tree.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function copyMatching(fromDir, toDir, test) {
  if (!fs.existsSync(fromDir)) return;
  for (const entry of fs.readdirSync(fromDir, { withFileTypes: true })) {
    const from = path.join(fromDir, entry.name);
    const to = path.join(toDir, entry.name);
    if (entry.isDirectory()) copyMatching(from, to, test);
    else if (test(entry.name)) {
      fs.mkdirSync(toDir, { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

copyMatching(path.join(root, 'src'), path.join(root, 'dist', 'src'), (name) => /\.(lua|sql)$/.test(name));
copyMatching(path.join(root, 'locales'), path.join(root, 'dist', 'locales'), (name) =>
  name.endsWith('.json'),
);
// The phone simulator's page (plain HTML/CSS/JS, no build step), served from beside its router.
copyMatching(
  path.join(root, 'src', 'simulator', 'public'),
  path.join(root, 'dist', 'src', 'simulator', 'public'),
  () => true,
);
// The operators' console (plain HTML/CSS/JS, no build step), served from beside its router.
copyMatching(
  path.join(root, 'src', 'console', 'public'),
  path.join(root, 'dist', 'src', 'console', 'public'),
  () => true,
);
