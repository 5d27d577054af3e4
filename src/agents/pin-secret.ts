import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { IN_MEMORY } from '../records/settings';
import type { PinSecret } from './pin';

/**
 * Where the PIN pepper comes from: `AGENT_PIN_SECRET` when set (required in production and with
 * `DATABASE_URL`, src/config/production.ts `checkRecordsKeys`: the gateways, workers and CLI that
 * share a PostgreSQL must share the pepper, and it may not live in the database it protects);
 * else, in the embedded mode, a random key made at first start and kept in `<DATA_DIR>/secrets/`
 * (mode 0600) beside the records it protects; in memory for `memory://` (the records go with it).
 */

/** Fewest characters `AGENT_PIN_SECRET` may have. */
export const MIN_PIN_SECRET_LENGTH = 32;

/** `NODE_ENV=test`'s secret when none is set: every process of a test agrees. Never for real PINs. */
export const TEST_PIN_SECRET = 'test-agent-pin-secret-not-for-real-pins';

/** The key file's path under a data directory. */
export function pinSecretPath(dataDir: string): string {
  return resolve(dataDir, 'secrets', 'agent-pin.key');
}

// One per process: every registry of a process over in-memory records agrees.
let inMemory: PinSecret | null = null;

/** Records in PostgreSQL have no data directory of their own: the pepper must be configured. */
export const SHARED_RECORDS = Symbol('records in PostgreSQL');

/**
 * The pepper for `configured` (AGENT_PIN_SECRET) or the records' data directory. Records in
 * PostgreSQL ({@link SHARED_RECORDS}) with none configured is refused: a key of this process's
 * own would lock out every agent another process made, and all of them at the next start.
 */
export function pinSecretFor(
  configured: string | null | undefined,
  dataDir: string | typeof SHARED_RECORDS | undefined,
): PinSecret {
  if (configured) return Buffer.from(configured, 'utf8');
  if (dataDir === SHARED_RECORDS)
    throw new Error('AGENT_PIN_SECRET is needed when the records are in PostgreSQL (DATABASE_URL)');
  if (dataDir === undefined || dataDir === IN_MEMORY) return (inMemory ??= randomBytes(32));
  const path = pinSecretPath(dataDir);
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
