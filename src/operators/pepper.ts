import { secretFor } from '../records/secret-file';

/**
 * The pepper of operators' password hashes: `OPERATOR_PASSWORD_PEPPER` when set (required in
 * production); else a key file `<DATA_DIR>/secrets/operator-password.key` made at first start (the
 * embedded mode), in memory for `memory://`; `NODE_ENV=test` has a fixed one.
 */

export const MIN_PEPPER_LENGTH = 32;
export const TEST_PASSWORD_PEPPER = 'test-operator-password-pepper-not-for-real-use';

export function passwordPepperFor(
  configured: string | null | undefined,
  dataDir: string | undefined,
): Buffer {
  return secretFor('operator-password.key', configured, dataDir);
}

/** The console's settings (`OPERATOR_PASSWORD_PEPPER`, `CONSOLE_IDLE_MINUTES`, `CONSOLE_LOCKOUT_MINUTES`). */
export interface ConsoleSettings {
  /** null: the embedded mode's own key file (or memory). */
  passwordPepper: string | null;
  idleMs: number;
  lockMs: number;
  /** The session cookie is `Secure` (production, behind TLS). */
  secureCookies: boolean;
}
