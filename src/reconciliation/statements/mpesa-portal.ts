import { amountMinor, msisdnIn, present, statementTime } from './fields';
import { StatementFormatError, type ParsedStatement, type StatementLine } from './types';

/**
 * M-Pesa's organisation portal statement export (CSV): a few title rows (organisation, short
 * code, period), then the header `Receipt No., Completion Time, Initiation Time, Details,
 * Transaction Status, Paid In, Withdrawn, Balance, Balance Confirmed, Reason Type, Other Party
 * Info, Linked Transaction ID, A/C No.` and one row per transaction. Times are the portal's
 * (East Africa Time); the statement carries no currency (the account's: KES).
 */

export const MPESA_COLUMNS = {
  receipt: 'Receipt No.',
  completed: 'Completion Time',
  details: 'Details',
  status: 'Transaction Status',
  paidIn: 'Paid In',
  withdrawn: 'Withdrawn',
} as const;
/** Read when present; older exports lack some of them. */
const OPTIONAL = {
  reasonType: 'Reason Type',
  otherParty: 'Other Party Info',
  linked: 'Linked Transaction ID',
  account: 'A/C No.',
} as const;

export const MPESA_ZONE = 'Africa/Nairobi';

/** The index of the header row, or -1 when these rows are not an M-Pesa portal export. */
export function mpesaHeaderRow(rows: string[][]): number {
  return rows.findIndex((row) => Object.values(MPESA_COLUMNS).every((name) => row.map(clean).includes(name)));
}

const clean = (cell: string) => cell.replace(/^\uFEFF/, '').trim();

export function readMpesaPortal(rows: string[][], header: number, currency: string): ParsedStatement {
  const names = rows[header].map(clean);
  const col = (name: string) => names.indexOf(name);
  const index = Object.fromEntries(
    Object.entries({ ...MPESA_COLUMNS, ...OPTIONAL }).map(([key, name]) => [key, col(name)]),
  ) as Record<keyof typeof MPESA_COLUMNS | keyof typeof OPTIONAL, number>;
  const lines: StatementLine[] = [];
  let skipped = 0;
  rows.slice(header + 1).forEach((row, i) => {
    const where = `line ${header + i + 2}`;
    const cell = (key: keyof typeof index) => (index[key] >= 0 ? (row[index[key]] ?? '').trim() : '');
    if (row.every((c) => c.trim() === '')) return;
    const receipt = cell('receipt');
    if (receipt === '') throw new StatementFormatError(`${where}: no ${MPESA_COLUMNS.receipt}`);
    if (cell('status').toLowerCase() !== 'completed') {
      skipped += 1;
      return;
    }
    const paidIn = Math.abs(amountMinor(cell('paidIn'), `${where} ${MPESA_COLUMNS.paidIn}`));
    const withdrawn = Math.abs(amountMinor(cell('withdrawn'), `${where} ${MPESA_COLUMNS.withdrawn}`));
    const details = cell('details');
    const what = `${cell('reasonType')} ${details}`.toLowerCase();
    const reversal = what.includes('reversal');
    const charge = what.includes('charge');
    const kind =
      reversal && withdrawn > 0 ? 'refund' : paidIn > 0 && !charge && !reversal ? 'payment' : 'other';
    const account = present(cell('account')) ?? present(/\bAcc\.\s*(\S+)/i.exec(details)?.[1]);
    lines.push({
      provider: 'mpesa',
      receipt,
      completedAt: statementTime(cell('completed'), MPESA_ZONE, `${where} ${MPESA_COLUMNS.completed}`),
      kind,
      amount: { currency, minor: kind === 'payment' ? paidIn : withdrawn || paidIn },
      payer: msisdnIn(cell('otherParty')) ?? msisdnIn(details),
      accountReference: kind === 'payment' ? account : null,
      // Charges name the payment they are for too: only a reversal gives a receipt back.
      linkedReceipt:
        kind !== 'refund'
          ? null
          : (present(cell('linked')) ?? present(/transaction\s+([A-Z0-9]{8,12})/i.exec(details)?.[1])),
      details,
    });
  });
  return { provider: 'mpesa', format: 'mpesa-portal-csv', lines, skipped };
}
