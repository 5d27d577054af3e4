import { z } from 'zod';
import { bool, doc, FLAGS, int, optionalString, text } from '../variables';

/**
 * The three-way reconciliation (src/reconciliation): the nightly run, who is told when a day does
 * not close, and how long a payment at the day's end waits for the next day's statement.
 */
export const reconciliation = {
  RECONCILIATION_NIGHTLY: doc(
    bool(false),
    "reconcile yesterday every night (pull M-Pesa's statement where Daraja's Pull API is set up, match, tell finance when the day does not close)",
  ),
  RECONCILIATION_NIGHTLY_AT: doc(
    text('01:00').pipe(z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24 h, local time)')),
    'the local time (`TZ`) of the nightly run',
  ),
  RECONCILIATION_ALERT_WEBHOOK_URL: doc(
    optionalString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
    'POSTed a JSON summary when a reconciled day does not close',
    'unset: none',
  ),
  RECONCILIATION_ALERT_MSISDN: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^\+?\d{8,15}$/, 'must be a phone number in E.164')
        .optional(),
    ),
    "finance's number: an SMS when a reconciled day does not close",
    'unset: none',
  ),
  RECONCILIATION_LATE_WINDOW_MIN: doc(
    int(30, 0, 1440),
    "a payment this close to the day's end with no statement line yet is `late_settlement` until the next day's statement is in",
  ),
  RECONCILIATION_PULL: doc(
    z.enum(FLAGS).optional(),
    "pull M-Pesa's statement by Daraja's Pull Transactions API (the shortcode must be registered for it)",
    '`true` with the embedded payment sandbox, else `false`',
  ),
};
