import type { Mismatch } from './queue';

const COLUMNS = [
  'id',
  'day',
  'reason',
  'state',
  'amount',
  'purchase_id',
  'payment_id',
  'suggested_action',
  'assignee',
  'decision',
  'summary',
];

const cell = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : String(value);
  // A leading = + - @ is a formula to a spreadsheet: quoted with a ' so it stays text.
  const safe = /^[=+\-@]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** The mismatches as CSV for finance (RFC 4180, CRLF). */
export function mismatchesCsv(rows: Mismatch[]): string {
  const lines = [COLUMNS.join(',')];
  for (const m of rows)
    lines.push(
      [
        m.id,
        m.day,
        m.reason,
        m.state,
        m.amount,
        m.purchaseId,
        m.paymentId,
        m.suggestedAction,
        m.assignee,
        m.decision,
        (m.facts as { summary?: string }).summary,
      ]
        .map(cell)
        .join(','),
    );
  return `${lines.join('\r\n')}\r\n`;
}
