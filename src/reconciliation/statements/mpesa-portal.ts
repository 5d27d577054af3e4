import { amountMinor, exportRows, headerRow, msisdnIn, present, statementTime } from './fields';
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
  return headerRow(rows, MPESA_COLUMNS);
}

export function readMpesaPortal(rows: string[][], header: number, currency: string): ParsedStatement {
  const lines: StatementLine[] = [];
  let skipped = 0;
  for (const { where, cell } of exportRows(rows, header, { ...MPESA_COLUMNS, ...OPTIONAL })) {
    const receipt = cell('receipt');
    if (receipt === '') throw new StatementFormatError(`${where}: no ${MPESA_COLUMNS.receipt}`);
    if (cell('status').toLowerCase() !== 'completed') {
      skipped += 1;
      continue;
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
  }
  return { provider: 'mpesa', format: 'mpesa-portal-csv', lines, skipped };
}
