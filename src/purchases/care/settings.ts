import type { AdminCredential } from '../../http/secrets';
import { MoneyFormatError, parseMoney, type Money } from '../../vas/money';

export type { AdminCredential };

/**
 * Customer-care settings read from the environment: who may call the admin routes (labelled
 * tokens, so the audit trail says who acted), how long resolved purchases are kept, and the
 * debit-account balance watch.
 */

export interface CareSettings {
  /** `ADMIN_TOKEN` (label `admin`) and every `ADMIN_TOKENS` entry; empty = no admin routes. */
  adminCredentials: AdminCredential[];
  /** `PURCHASE_RETENTION_DAYS` in ms: resolved purchases are deleted this long after settling. */
  retentionMs: number;
  /** `BALANCE_POLL_INTERVAL_MS`: how often the debit account's balance is read (0: never). */
  balancePollMs: number;
  /** `LOW_BALANCE_ALERT` (`BWP 5000.00`): under it, a loud log and `debit_account_balance_low 1`. */
  lowBalanceAlert: Money | undefined;
  /** `CARE_PHONE` and `CARE_HOURS`: what Help shows and every failure SMS ends with; null: unset. */
  contact: CareContact | null;
}

/** Customer care's number and, if set, its hours (`Mon-Fri 08:00-17:00`), as typed. */
export interface CareContact {
  phone: string;
  hours: string | null;
}

const LABEL = /^[A-Za-z0-9._@-]{1,32}$/;

/** `label:token,label:token` (`ADMIN_TOKENS`) after `ADMIN_TOKEN` (labelled `admin`); throws what is wrong. */
export function parseAdminCredentials(
  adminToken: string | undefined,
  labelled: string | undefined,
  minLength: number,
): AdminCredential[] {
  const credentials: AdminCredential[] = adminToken ? [{ label: 'admin', token: adminToken }] : [];
  for (const entry of (labelled ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    const label = colon > 0 ? entry.slice(0, colon) : '';
    const token = colon > 0 ? entry.slice(colon + 1) : '';
    if (!LABEL.test(label))
      throw new Error('ADMIN_TOKENS: each entry is label:token, the label 1-32 of A-Z a-z 0-9 . _ @ -');
    if (token.length < minLength)
      throw new Error(`ADMIN_TOKENS: the token of ${label} must be at least ${minLength} characters`);
    if (credentials.some((c) => c.label === label))
      throw new Error(`ADMIN_TOKENS: label ${label} given twice`);
    if (credentials.some((c) => c.token === token))
      throw new Error(`ADMIN_TOKENS: the token of ${label} is also another's: each person gets their own`);
    credentials.push({ label, token });
  }
  return credentials;
}

/** `LOW_BALANCE_ALERT` as exact minor units (the money parser's format, `<CCY> <amount>`). */
export function parseLowBalanceAlert(raw: string | undefined): Money | undefined {
  if (raw === undefined) return undefined;
  try {
    const money = parseMoney(raw);
    if (money.minor < 0) throw new MoneyFormatError(raw, 'must not be negative');
    return money;
  } catch (error) {
    throw new Error(`LOW_BALANCE_ALERT: ${(error as Error).message} (e.g. "BWP 5000.00")`);
  }
}
