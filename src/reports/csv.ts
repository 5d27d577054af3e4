/**
 * The daily report as one CSV table for a spreadsheet: RFC 4180, decimal amounts, and text
 * columns a spreadsheet would run as a formula defused.
 */
import type { Money } from '../vas/money';
import type { DailyReport } from './daily';

/** Columns of names and codes (not figures): one a spreadsheet would run as a formula is defused. */
const TEXT_COLUMNS = ['product', 'provider', 'channel', 'agent', 'agent_name', 'state'] as const;
const TEXT: ReadonlySet<string> = new Set(TEXT_COLUMNS);

const CSV_COLUMNS = [
  'section',
  'date',
  ...TEXT_COLUMNS,
  'currency',
  'count',
  'amount',
  'charges',
  'total',
  'totals_unknown',
  'float_in',
  'float_out',
  'opening_balance',
  'opening_held',
  'closing_balance',
  'closing_held',
  'commission',
  'transfers_in',
  'transfers_out',
] as const;

type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number>>;

/** Minor units as a decimal (`-1234.50`): hundredths, as every amount of the service. */
function decimal(value: Money | undefined): string {
  if (!value) return '';
  const abs = Math.abs(value.minor);
  return `${value.minor < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * One field per RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled.
 * Text starting as a formula would (`=`, `+`, `-`, `@`) is prefixed with `'`.
 */
function field(column: string, value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (TEXT.has(column) && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The report as one CSV table (RFC 4180: CRLF line ends, a header row): a `section` column says
 * which part a row belongs to (`sales`, `agent`, `open`); amounts are decimals in `currency`.
 */
export function reportCsv(report: DailyReport): string {
  const rows: CsvRow[] = [];
  for (const s of report.sales)
    rows.push({
      section: 'sales',
      product: s.productType,
      provider: s.providerCode,
      channel: s.channel,
      currency: s.amount.currency,
      count: s.count,
      amount: decimal(s.amount),
      charges: decimal(s.charges),
      total: decimal(s.total),
      totals_unknown: s.totalsUnknown,
    });
  for (const a of report.agents)
    rows.push({
      section: 'agent',
      agent: a.msisdn,
      agent_name: a.name ?? undefined,
      currency: a.sales.value.currency,
      count: a.sales.count,
      amount: decimal(a.sales.value),
      float_in: decimal(a.floatIn),
      float_out: decimal(a.floatOut),
      opening_balance: decimal(a.opening?.balance),
      opening_held: decimal(a.opening?.held),
      closing_balance: decimal(a.closing?.balance),
      closing_held: decimal(a.closing?.held),
      commission: decimal(a.commission),
      transfers_in: decimal(a.transfersIn),
      transfers_out: decimal(a.transfersOut),
    });
  for (const o of report.open)
    rows.push({
      section: 'open',
      state: o.state,
      currency: o.amount.currency,
      count: o.count,
      amount: decimal(o.amount),
    });
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows)
    lines.push(CSV_COLUMNS.map((c) => field(c, c === 'date' ? report.date : row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
