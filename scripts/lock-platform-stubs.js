// Adds lock entries for platform-specific optional packages that this machine's registry
// does not serve (darwin, windows, android, ... builds of native helpers). Without them
// `npm ci` refuses the lock as "out of sync" (npm/cli#4828, #8320). Each stub names the
// package's version and platform, so npm skips it on every other platform without fetching.
// Run after `npm install` whenever package-lock.json is regenerated.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.resolve(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const CPUS = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x'];
const OSES = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OSES.find((o) => parts.includes(o));
  const cpu = CPUS.find((c) => parts.includes(c));
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    if (packages[target] || packages[`${location}/${target}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os || !cpu) continue; // not a platform build: leave it to npm
    packages[target] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    };
    added += 1;
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platform-stubs: ${added} platform stub(s) added`);
