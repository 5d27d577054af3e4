import { secretFilePath, secretFor } from '../records/secret-file';
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

const FILE = 'agent-pin.key';

/** The key file's path under a data directory. */
export function pinSecretPath(dataDir: string): string {
  return secretFilePath(dataDir, FILE);
}

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
  if (!configured && dataDir === SHARED_RECORDS)
    throw new Error('AGENT_PIN_SECRET is needed when the records are in PostgreSQL (DATABASE_URL)');
  return secretFor(FILE, configured, dataDir === SHARED_RECORDS ? undefined : dataDir);
}
