import { parse } from 'csv-parse/sync';
import { isDarajaPull, readDarajaPull } from './daraja-pull';
import { momoHeaderRow, readMomoPortal } from './momo-portal';
import { mpesaHeaderRow, readMpesaPortal } from './mpesa-portal';
import { StatementFormatError, type ParsedStatement } from './types';

export interface ReadOptions {
  /** M-Pesa statements carry no currency: the account's (`PAYMENT_CURRENCY` for mpesa, else KES). */
  mpesaCurrency: string;
  /** Zone of MoMo's local times (`TZ`). */
  momoZone: string;
}

export const EXPECTED_FORMATS =
  'expected an M-Pesa organisation portal statement (CSV with Receipt No., Completion Time, Details, ' +
  'Transaction Status, Paid In, Withdrawn), an MTN MoMo statement export (CSV with Id, External ' +
  'Transaction Id, Date, Status, Type, From, To, Amount, Currency) or a Daraja pull-transactions ' +
  'answer (JSON with ResponseCode and Response)';

/** Rows looked at for a header (the portal puts a few title rows first). */
const HEADER_SEARCH_ROWS = 30;

/**
 * Reads a statement file in any format known here; anything else is a `StatementFormatError`
 * saying what was expected. Pure: nothing is stored.
 */
export function readStatement(content: string | Buffer, options: ReadOptions): ParsedStatement {
  const text = (typeof content === 'string' ? content : content.toString('utf8')).replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new StatementFormatError(`the file is empty: ${EXPECTED_FORMATS}`);
  if (/^\s*[{[]/.test(text)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new StatementFormatError(`not valid JSON: ${EXPECTED_FORMATS}`);
    }
    if (!isDarajaPull(json)) throw new StatementFormatError(`an unknown JSON document: ${EXPECTED_FORMATS}`);
    return readDarajaPull(json, options.mpesaCurrency);
  }
  let rows: string[][];
  try {
    // Empty lines kept: a row's index is its line's (for the errors), the readers skip them.
    rows = parse(text, { relax_column_count: true, bom: true }) as string[][];
  } catch (error) {
    throw new StatementFormatError(`not readable as CSV (${(error as Error).message}): ${EXPECTED_FORMATS}`);
  }
  const head = rows.slice(0, HEADER_SEARCH_ROWS);
  const mpesa = mpesaHeaderRow(head);
  if (mpesa >= 0) return readMpesaPortal(rows, mpesa, options.mpesaCurrency);
  const momo = momoHeaderRow(head);
  if (momo >= 0) return readMomoPortal(rows, momo, options.momoZone);
  throw new StatementFormatError(`an unknown statement format: ${EXPECTED_FORMATS}`);
}
