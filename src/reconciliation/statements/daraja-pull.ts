import { amountMinor, msisdnIn, present, statementTime } from './fields';
import { MPESA_ZONE } from './mpesa-portal';
import { StatementFormatError, type ParsedStatement, type StatementLine } from './types';

/**
 * Daraja's Pull Transactions API (`POST /pulltransactions/v1/query` with `ShortCode`,
 * `StartDate`, `EndDate`, `OffSetValue`): the answer is `{ResponseRefID, ResponseCode: "1000",
 * ResponseMessage, Response: [[{transactionId, trxDate, msisdn, sender, transactiontype,
 * billreference, amount, organizationname}]]}` — the C2B money that came in, a page at a time.
 */

export interface DarajaPullAnswer {
  ResponseCode?: unknown;
  ResponseMessage?: unknown;
  Response?: unknown;
}

export function isDarajaPull(value: unknown): value is DarajaPullAnswer {
  return typeof value === 'object' && value !== null && 'ResponseCode' in value && 'Response' in value;
}

/** The transactions of one page, flattened (the API nests them one level, sometimes not). */
export function pullTransactions(answer: DarajaPullAnswer): Record<string, unknown>[] {
  if (String(answer.ResponseCode) !== '1000')
    throw new StatementFormatError(
      `the pull answer is not a success (ResponseCode ${String(answer.ResponseCode)}: ${String(answer.ResponseMessage ?? '')})`,
    );
  const response = answer.Response;
  if (!Array.isArray(response)) throw new StatementFormatError('the pull answer has no Response list');
  return response.flat().filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null);
}

export function readDarajaPull(answer: DarajaPullAnswer, currency: string): ParsedStatement {
  const lines: StatementLine[] = pullTransactions(answer).map((t, i) => {
    const where = `transaction ${i + 1}`;
    const text = (key: string) => (t[key] === undefined || t[key] === null ? '' : String(t[key]).trim());
    const receipt = text('transactionId');
    if (receipt === '') throw new StatementFormatError(`${where}: no transactionId`);
    const type = text('transactiontype').toLowerCase();
    const kind = type.includes('reversal')
      ? 'refund'
      : type.includes('c2b') || type === ''
        ? 'payment'
        : 'other';
    return {
      provider: 'mpesa',
      receipt,
      completedAt: statementTime(text('trxDate'), MPESA_ZONE, `${where} trxDate`),
      kind,
      amount: { currency, minor: Math.abs(amountMinor(text('amount'), `${where} amount`)) },
      payer: msisdnIn(text('msisdn')),
      accountReference: present(text('billreference')),
      linkedReceipt: null,
      details: [text('transactiontype'), text('sender')].filter(Boolean).join(' '),
    } satisfies StatementLine;
  });
  return { provider: 'mpesa', format: 'daraja-pull-json', lines, skipped: 0 };
}
