import { secretFilePath, secretFor } from '../records/secret-file';
import type { PinSecret } from './pin';

/**
 * Where the PIN pepper comes from: `AGENT_PIN_SECRET` when set (required in production); else,
 * in the embedded mode, a random key made at first start and kept in `<DATA_DIR>/secrets/`
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

/** The pepper for `configured` (AGENT_PIN_SECRET) or the records' data directory. */
export function pinSecretFor(configured: string | null | undefined, dataDir: string | undefined): PinSecret {
  return secretFor(FILE, configured, dataDir);
}
