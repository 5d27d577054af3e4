import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { secretFilePath } from '../records/secret-file';
import { OperatorExistsError, type OperatorAccounts } from './accounts';

/**
 * The embedded mode's first operator: the CLI cannot open the embedded database while the
 * gateway holds it, so at a start with no operator at all the gateway makes `admin` (role admin)
 * and leaves its one-time password in `<DATA_DIR>/secrets/console-admin-password` (mode 0600,
 * beside the records' own keys), never in a log. The password must be changed at the first login.
 * With `DATABASE_URL` the first operator is made with `npm run cli -- operator add`.
 */
export const FIRST_OPERATOR = 'admin';

export function firstOperatorPath(dataDir: string): string {
  return secretFilePath(dataDir, 'console-admin-password');
}

/** The file holding the new first operator's one-time password, or null when there are operators. */
export async function makeFirstOperator(accounts: OperatorAccounts, dataDir: string): Promise<string | null> {
  if ((await accounts.count()) > 0) return null;
  let password: string;
  try {
    ({ password } = await accounts.add(FIRST_OPERATOR, 'admin', 'gateway:first-start'));
  } catch (error) {
    if (error instanceof OperatorExistsError) return null;
    throw error;
  }
  const path = firstOperatorPath(dataDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${password}\n`, { mode: 0o600 });
  return path;
}
