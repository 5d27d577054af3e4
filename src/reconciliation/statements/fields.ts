import { localInstant } from '../../i18n/local-time';
import { StatementFormatError } from './types';

/**
 * What the readers share: amounts as exact minor units, local times, numbers. A value that does
 * not read is a `StatementFormatError` naming the line and the column, never a guess.
 */

const AMOUNT = /^-?\d{1,15}(\.\d{1,2})?$/;

/** `1,234.50`, `-20.00`, `` (empty: 0) → minor units; thousands separators allowed. */
export function amountMinor(raw: string | undefined, where: string): number {
  const text = (raw ?? '').replace(/,/g, '').trim();
  if (text === '') return 0;
  if (!AMOUNT.test(text)) throw new StatementFormatError(`${where}: not an amount: ${JSON.stringify(raw)}`);
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return negative ? -minor : minor;
}

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const DAY_FIRST = /^(\d{2})[./-](\d{2})[./-](\d{4}) (\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A statement's time: `2026-12-01 14:23:11` (or `01-12-2026 14:23:11`, day first) is local to
 * `zone`; an ISO time with `Z` or an offset is taken as it says.
 */
export function statementTime(raw: string | undefined, zone: string, where: string): Date {
  const text = (raw ?? '').trim();
  if (/[zZ]$|[+-]\d{2}:?\d{2}$/.test(text) && /^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const at = Date.parse(text);
    if (!Number.isNaN(at)) return new Date(at);
  }
  const iso = LOCAL_TIME.exec(text);
  const dayFirst = iso ? null : DAY_FIRST.exec(text);
  const m = iso
    ? { year: iso[1], month: iso[2], day: iso[3], hour: iso[4], minute: iso[5], second: iso[6] }
    : dayFirst
      ? {
          year: dayFirst[3],
          month: dayFirst[2],
          day: dayFirst[1],
          hour: dayFirst[4],
          minute: dayFirst[5],
          second: dayFirst[6],
        }
      : null;
  if (!m) throw new StatementFormatError(`${where}: not a time: ${JSON.stringify(raw)}`);
  return localInstant(
    {
      year: Number(m.year),
      month: Number(m.month),
      day: Number(m.day),
      hour: Number(m.hour),
      minute: Number(m.minute),
      second: Number(m.second ?? 0),
    },
    zone,
  );
}

/** The first run of 9 to 15 digits in `text` (a payer's number in "254712345678 - JANE DOE"). */
export function msisdnIn(text: string | undefined): string | null {
  const match = /(?:^|\D)(\d{9,15})(?:\D|$)/.exec(text ?? '');
  return match ? match[1] : null;
}

export function present(text: string | undefined): string | null {
  const t = (text ?? '').trim();
  return t === '' ? null : t;
}

/** A header cell as the portals export it: trimmed, a byte-order mark dropped. */
export const headerCell = (cell: string): string => cell.replace(/^\uFEFF/, '').trim();

/** The row of `rows` that names every one of `columns`, or -1. */
export function headerRow(rows: string[][], columns: Record<string, string>): number {
  return rows.findIndex((row) => Object.values(columns).every((name) => row.map(headerCell).includes(name)));
}

/**
 * The rows after the header of a portal's CSV export, blank ones left out, each with where it is
 * (`line N`, as a spreadsheet numbers it) and a reader of its cells by column key (`columns`
 * names each as the export spells it; a column the export lacks reads as '').
 */
export function exportRows<K extends string>(
  rows: string[][],
  header: number,
  columns: Record<K, string>,
): { where: string; cell: (key: K) => string }[] {
  const names = rows[header].map(headerCell);
  const index = new Map(
    (Object.entries(columns) as [K, string][]).map(([key, name]) => [key, names.indexOf(name)]),
  );
  return rows.slice(header + 1).flatMap((row, i) => {
    if (row.every((c) => c.trim() === '')) return [];
    const cell = (key: K) => {
      const at = index.get(key) ?? -1;
      return at >= 0 ? (row[at] ?? '').trim() : '';
    };
    return [{ where: `line ${header + i + 2}`, cell }];
  });
}
