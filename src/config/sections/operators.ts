import { z } from 'zod';
import { MIN_PEPPER_LENGTH } from '../../operators/pepper';
import { doc, FLAGS, int, optionalString } from '../variables';

/**
 * The operators' side: the admin and metrics tokens, balance polling, customer care.
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const operators = {
  ADMIN_TOKEN: doc(
    optionalString,
    'bearer token of the operator API (labelled `admin`)',
    'unset: `/admin` disabled',
  ),
  ADMIN_TOKENS: doc(
    optionalString,
    'more operator tokens, one per person (`alice:<token>,bob:<token>`); the audit trail names who acted',
  ),
  OPERATOR_PASSWORD_PEPPER: doc(
    optionalString.pipe(
      z.string().min(MIN_PEPPER_LENGTH, `must be at least ${MIN_PEPPER_LENGTH} characters`).optional(),
    ),
    "server secret every operator's console password hash is peppered with (HMAC-SHA256 before scrypt); required in production, and changing it invalidates every password (`operator reset` each)",
    'unset: a random key made at first start in `<DATA_DIR>/secrets/operator-password.key` (in memory for `memory://`)',
  ),
  CONSOLE_IDLE_MINUTES: doc(
    int(30, 1, 720),
    'a console login ends after this many minutes without a request (and after 12 hours whatever it does)',
  ),
  CONSOLE_LOCKOUT_MINUTES: doc(
    int(15, 1, 1440),
    'how long an operator account stays locked after 5 wrong passwords in a row',
  ),
  BALANCE_POLL_INTERVAL_MS: doc(
    int(60000, 0, 86_400_000),
    'how often the debit account balance is read (`0`: once at start)',
  ),
  LOW_BALANCE_ALERT: doc(
    optionalString,
    '`<CCY> <amount>` (`BWP 5000.00`): under it, `debit_account_balance_low 1` and an error log on each poll',
  ),
  CARE_PHONE: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^\+?[0-9][0-9 -]{1,19}$/, 'must be a phone number (digits, spaces, dashes, an optional +)')
        .optional(),
    ),
    "customer care's number: the Help item shows it and every failure SMS ends with it",
    'unset: no care line',
  ),
  CARE_HOURS: doc(
    optionalString.pipe(z.string().max(40, 'must be at most 40 characters').optional()),
    'when customer care answers (`Mon-Fri 08:00-17:00`), shown after `CARE_PHONE`',
    'unset: not shown',
  ),
  METRICS_TOKEN: doc(
    optionalString,
    'bearer token of `GET /metrics`',
    'unset: open (keep `/metrics` private)',
  ),
  DEV_ROUTES: doc(
    z.enum(FLAGS).optional(),
    'serve `GET /dev/sms` (the outbox; it holds tokens), behind `ADMIN_TOKEN` with a real purchase service',
    '`true` in the embedded mode, else `false`',
  ),
};
