import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { IN_MEMORY } from './settings';

/**
 * A server secret (a pepper) that must live outside the records it protects: the configured
 * value when set (required in production); else, in the embedded mode, a random key made at
 * first start in `<DATA_DIR>/secrets/<file>` (mode 0600) beside the records; in memory for
 * `memory://` (the records go with it). Agents' PINs (src/agents/pin-secret.ts) and operators'
 * passwords (src/operators/pepper.ts) each have their own file.
 */

/** The key file's path under a data directory. */
export function secretFilePath(dataDir: string, file: string): string {
  return resolve(dataDir, 'secrets', file);
}

// One per file and process: every store of a process over in-memory records agrees.
const inMemory = new Map<string, Buffer>();

export function secretFor(
  file: string,
  configured: string | null | undefined,
  dataDir: string | undefined,
): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  if (dataDir === undefined || dataDir === IN_MEMORY) {
    let secret = inMemory.get(file);
    if (!secret) inMemory.set(file, (secret = randomBytes(32)));
    return secret;
  }
  const path = secretFilePath(dataDir, file);
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(resolve(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  try {
    // `wx`: a second process starting at the same moment keeps the first one's key.
    writeFileSync(path, randomBytes(32), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path);
}
