import { amountMinor, exportRows, headerRow, msisdnIn, present, statementTime } from './fields';
import { StatementFormatError, type ParsedStatement, type StatementLine } from './types';

/**
 * MTN MoMo's partner portal statement export (CSV): a header row naming `Id, External
 * Transaction Id, Date, Status, Type, …, From, From Name, To, To Name, …, Amount, Currency, Fee,
 * …, Balance`, one row per transaction. `Id` is the financialTransactionId the API answers;
 * `External Transaction Id` is the externalId we sent (our payment's or refund's reference);
 * `From`/`To` are accounts such as `FRI:256771234567/MSISDN`. Times are local to the operator.
 */

export const MOMO_COLUMNS = {
  receipt: 'Id',
  external: 'External Transaction Id',
  date: 'Date',
  status: 'Status',
  type: 'Type',
  from: 'From',
  to: 'To',
  amount: 'Amount',
  currency: 'Currency',
} as const;
const OPTIONAL = { note: 'Note Message', info: 'Information' } as const;

export function momoHeaderRow(rows: string[][]): number {
  return headerRow(rows, MOMO_COLUMNS);
}

/** Types of money in from a payer (request-to-pay is a debit of the payer's wallet). */
const PAYMENT_TYPES = new Set(['DEBIT', 'PAYMENT', 'REQUEST_TO_PAY', 'MERCHANT_PAYMENT', 'COLLECTION']);
/** Types of money back to a payer. */
const REFUND_TYPES = new Set(['REFUND', 'TRANSFER', 'DISBURSEMENT', 'REVERSAL']);

export function readMomoPortal(rows: string[][], header: number, zone: string): ParsedStatement {
  const lines: StatementLine[] = [];
  let skipped = 0;
  for (const { where, cell } of exportRows(rows, header, { ...MOMO_COLUMNS, ...OPTIONAL })) {
    const receipt = cell('receipt');
    if (receipt === '') throw new StatementFormatError(`${where}: no ${MOMO_COLUMNS.receipt}`);
    if (cell('status').toUpperCase() !== 'SUCCESSFUL') {
      skipped += 1;
      continue;
    }
    const currency = cell('currency').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency))
      throw new StatementFormatError(`${where}: not a currency: ${JSON.stringify(cell('currency'))}`);
    const type = cell('type')
      .toUpperCase()
      .replace(/[\s-]+/g, '_');
    const kind = PAYMENT_TYPES.has(type) ? 'payment' : REFUND_TYPES.has(type) ? 'refund' : 'other';
    lines.push({
      provider: 'momo',
      receipt,
      completedAt: statementTime(cell('date'), zone, `${where} ${MOMO_COLUMNS.date}`),
      kind,
      amount: { currency, minor: Math.abs(amountMinor(cell('amount'), `${where} ${MOMO_COLUMNS.amount}`)) },
      payer: msisdnIn(kind === 'refund' ? cell('to') : cell('from')),
      accountReference: present(cell('external')),
      linkedReceipt: null,
      details: [cell('type'), cell('info'), cell('note')].filter(Boolean).join(' '),
    });
  }
  return { provider: 'momo', format: 'momo-portal-csv', lines, skipped };
}
