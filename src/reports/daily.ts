import { PURCHASE_STATES, RETAINED_STATES, type PurchaseState } from '../purchases/types';
import type { Money } from '../vas/money';
import type { Database, Queryable } from '../records/database';

/**
 * The operator's daily figures, as SQL over the system of record
 * (migrations 0001-0004): nothing here reads Redis or keeps a total of its own. Money is summed
 * as bigint in SQL, read as text and turned into a JS number only when it is a safe integer.
 * As CSV: `report-csv.ts`; the ledger check: `ledger-check.ts`.
 */

export interface DailyReportOptions {
  /** The local day, `YYYY-MM-DD`. */
  date: string;
  /** IANA zone the day is local to (the configured `TZ`, e.g. Africa/Gaborone). */
  timeZone: string;
  /** The floats' currency (`AGENT_CURRENCY`): float entries carry none. Default BWP, as the config. */
  floatCurrency?: string;
}

/** Succeeded purchases of the day of one product, provider, channel and currency. */
export interface SalesLine {
  productType: string;
  providerCode: string;
  channel: string;
  count: number;
  /** Σ the amounts bought. */
  amount: Money;
  /** Σ (total − amount) over the purchases whose total the service reported. */
  charges: Money;
  /** Σ totals, the amount standing in for a total not reported. */
  total: Money;
  /** Purchases without a reported total (in `total` at their amount, nothing in `charges`). */
  totalsUnknown: number;
}

/** One agent's day: its sales, and its float when it has one. */
export interface AgentLine {
  msisdn: string;
  /** Null when the agent record is gone (its ledger is kept). */
  name: string | null;
  /** Its sales that succeeded that day (float or account funded). */
  sales: { count: number; value: Money };
  /** Top-ups (operator credits, deposits, the agent's own), transfers in and positive adjustments of the day. */
  floatIn: Money;
  /** Sales settled from the float, transfers out and negative adjustments of the day. */
  floatOut: Money;
  /** Commission credited that day (a retailer's share, or a dealer's share of its retailers'). */
  commission: Money;
  /** A retailer's float received from its dealer; a dealer's moved to its retailers (in floatIn/floatOut). */
  transfersIn: Money;
  transfersOut: Money;
  /** Available float and held (open sales) before the day's first entry; null: no float yet. */
  opening: { balance: Money; held: Money } | null;
  /** After the day's last entry: opening + in + commission − out = closing, balance and held together. */
  closing: { balance: Money; held: Money } | null;
}

/** Purchases not settled for good at the end of the day (state as of then), by state. */
export interface OpenLine {
  state: PurchaseState;
  count: number;
  amount: Money;
}

export interface DailyReport {
  date: string;
  timeZone: string;
  /** The day as instants: [from, to). */
  from: string;
  to: string;
  sales: SalesLine[];
  agents: AgentLine[];
  open: OpenLine[];
}

/** A report asked for a day or zone that is not one. */
export class ReportInputError extends Error {
  constructor(
    readonly field: 'date' | 'timeZone' | 'floatCurrency',
    message: string,
  ) {
    super(message);
    this.name = 'ReportInputError';
  }
}

/** A sum too large for a JS number (never expected of a day): said, never rounded. */
export class UnsafeAmountError extends Error {
  constructor(readonly value: string) {
    super(`amount ${value} is beyond a safe integer of minor units`);
    this.name = 'UnsafeAmountError';
  }
}

/** bigint text (from `::text`) → exact number of minor units. */
function minor(value: string | null): number {
  const n = Number(value ?? '0');
  if (!/^-?\d+$/.test(value ?? '0') || !Number.isSafeInteger(n)) throw new UnsafeAmountError(String(value));
  return n;
}

const money = (currency: string, value: string | null): Money => ({ currency, minor: minor(value) });

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The purchases that succeeded in [$1, $2): the time a purchase entered `succeeded` (its history;
 * later `succeeded → succeeded` rows only note the hand-over to the notifier), counted on the day
 * of its first entry should there be two (ledgerCheck reports that).
 */
const SUCCEEDED_IN_DAY = `
  SELECT t.purchase_id
    FROM purchase_transitions t
   WHERE t.to_state = 'succeeded' AND t.from_state IS DISTINCT FROM 'succeeded'
     AND t.at >= $1::timestamptz AND t.at < $2::timestamptz
     AND NOT EXISTS (
       SELECT 1 FROM purchase_transitions e
        WHERE e.purchase_id = t.purchase_id AND e.version < t.version
          AND e.to_state = 'succeeded' AND e.from_state IS DISTINCT FROM 'succeeded')`;

/** The total the service reported (result.total) in minor units, when it is in the purchase's currency. */
const REPORTED_TOTAL = `
  CASE WHEN p.record -> 'result' -> 'total' ->> 'currency' = p.currency::text
        AND p.record -> 'result' -> 'total' ->> 'minor' ~ '^-?[0-9]{1,18}$'
       THEN (p.record -> 'result' -> 'total' ->> 'minor')::bigint END`;

function checkOptions(options: DailyReportOptions): Required<DailyReportOptions> {
  const { date, timeZone } = options;
  const floatCurrency = options.floatCurrency ?? 'BWP';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const parsed = day ? new Date(Date.UTC(+day[1], +day[2] - 1, +day[3])) : null;
  if (!parsed || parsed.toISOString().slice(0, 10) !== date)
    throw new ReportInputError('date', `date must be a day as YYYY-MM-DD, got ${JSON.stringify(date)}`);
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new ReportInputError('timeZone', `${JSON.stringify(timeZone)} is not an IANA time zone`);
  }
  if (!/^[A-Z]{3}$/.test(floatCurrency))
    throw new ReportInputError(
      'floatCurrency',
      `floatCurrency must be an ISO 4217 code, got ${floatCurrency}`,
    );
  return { date, timeZone, floatCurrency };
}

/**
 * The figures of one local day: sales by product, provider and channel; each agent's sales and
 * float; purchases still open at the day's end, by state. Read in one read-only snapshot.
 */
export async function dailyReport(db: Database, options: DailyReportOptions): Promise<DailyReport> {
  const { date, timeZone, floatCurrency } = checkOptions(options);
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // The zone's rules (daylight saving included) are PostgreSQL's: local midnight to midnight.
    const bounds = await tx.query<{ from_at: string; to_at: string }>(
      `SELECT ${ISO('(($1::date)::timestamp AT TIME ZONE $2)')} AS from_at,
              ${ISO('(($1::date + 1)::timestamp AT TIME ZONE $2)')} AS to_at`,
      [date, timeZone],
    );
    const { from_at: from, to_at: to } = bounds.rows[0];
    const [sales, agents, open] = [
      await salesLines(tx, from, to),
      await agentLines(tx, from, to, floatCurrency),
      await openLines(tx, to),
    ];
    return { date, timeZone, from, to, sales, agents, open };
  });
}

async function salesLines(tx: Queryable, from: string, to: string): Promise<SalesLine[]> {
  const result = await tx.query<{
    product_type: string;
    provider_code: string;
    channel: string;
    currency: string;
    count: number;
    amount: string;
    charges: string | null;
    total: string;
    totals_unknown: number;
  }>(
    `WITH of_day AS (${SUCCEEDED_IN_DAY}),
     sold AS (
       SELECT p.product_type, p.provider_code, p.channel, p.currency::text AS currency, p.amount_minor,
              ${REPORTED_TOTAL} AS total_minor
         FROM purchases p JOIN of_day ON of_day.purchase_id = p.id
        WHERE p.state = 'succeeded'
     )
     SELECT product_type, provider_code, channel, currency, count(*)::int AS count,
            sum(amount_minor)::text AS amount,
            sum(total_minor - amount_minor)::text AS charges,
            sum(coalesce(total_minor, amount_minor))::text AS total,
            count(*) FILTER (WHERE total_minor IS NULL)::int AS totals_unknown
       FROM sold
      GROUP BY product_type, provider_code, channel, currency
      ORDER BY product_type, provider_code, channel, currency`,
    [from, to],
  );
  return result.rows.map((row) => ({
    productType: row.product_type,
    providerCode: row.provider_code,
    channel: row.channel,
    count: row.count,
    amount: money(row.currency, row.amount),
    charges: money(row.currency, row.charges),
    total: money(row.currency, row.total),
    totalsUnknown: row.totals_unknown,
  }));
}

async function agentLines(tx: Queryable, from: string, to: string, currency: string): Promise<AgentLine[]> {
  // Every agent with a float by the day's end (activity or not: its closing balance is a figure
  // of the day), and every agent who sold that day. The balance at an instant is the one its
  // last entry before it recorded (entries are numbered in the order they were applied).
  const result = await tx.query<{
    msisdn: string;
    name: string | null;
    sales_count: number;
    sales_value: string | null;
    sales_currency: string | null;
    float_in: string | null;
    float_out: string | null;
    commission: string | null;
    transfers_in: string | null;
    transfers_out: string | null;
    opening_balance: string | null;
    opening_held: string | null;
    closing_balance: string | null;
    closing_held: string | null;
  }>(
    `WITH of_day AS (${SUCCEEDED_IN_DAY}),
     sales AS (
       SELECT p.agent_msisdn AS msisdn, count(*)::int AS n, sum(p.amount_minor) AS value,
              min(p.currency::text) AS currency, count(DISTINCT p.currency)::int AS currencies
         FROM purchases p JOIN of_day ON of_day.purchase_id = p.id
        WHERE p.state = 'succeeded' AND p.agent_msisdn IS NOT NULL
        GROUP BY p.agent_msisdn
     ),
     moves AS (
       SELECT msisdn,
              sum(amount_minor) FILTER (WHERE kind IN ('credit', 'deposit', 'topup', 'transfer_in')
                                          OR (kind = 'adjustment' AND amount_minor > 0)) AS float_in,
              sum(CASE WHEN kind IN ('settle', 'transfer_out') THEN amount_minor
                       WHEN kind = 'adjustment' AND amount_minor < 0 THEN -amount_minor END) AS float_out,
              sum(amount_minor) FILTER (WHERE kind = 'commission') AS commission,
              sum(amount_minor) FILTER (WHERE kind = 'transfer_in') AS transfers_in,
              sum(amount_minor) FILTER (WHERE kind = 'transfer_out') AS transfers_out
         FROM float_entries
        WHERE at >= $1::timestamptz AND at < $2::timestamptz
        GROUP BY msisdn
     ),
     opening AS (
       SELECT DISTINCT ON (msisdn) msisdn, balance_minor, held_minor
         FROM float_entries WHERE at < $1::timestamptz ORDER BY msisdn, seq DESC
     ),
     closing AS (
       SELECT DISTINCT ON (msisdn) msisdn, balance_minor, held_minor
         FROM float_entries WHERE at < $2::timestamptz ORDER BY msisdn, seq DESC
     ),
     who AS (SELECT msisdn FROM closing UNION SELECT msisdn FROM sales)
     SELECT who.msisdn, a.name, coalesce(s.n, 0) AS sales_count, s.value::text AS sales_value,
            CASE WHEN s.currencies > 1 THEN NULL ELSE s.currency END AS sales_currency,
            m.float_in::text AS float_in, m.float_out::text AS float_out, m.commission::text AS commission,
            m.transfers_in::text AS transfers_in, m.transfers_out::text AS transfers_out,
            o.balance_minor::text AS opening_balance, o.held_minor::text AS opening_held,
            c.balance_minor::text AS closing_balance, c.held_minor::text AS closing_held
       FROM who
       LEFT JOIN agents a ON a.msisdn = who.msisdn
       LEFT JOIN sales s ON s.msisdn = who.msisdn
       LEFT JOIN moves m ON m.msisdn = who.msisdn
       LEFT JOIN opening o ON o.msisdn = who.msisdn
       LEFT JOIN closing c ON c.msisdn = who.msisdn
      ORDER BY who.msisdn`,
    [from, to],
  );
  return result.rows.map((row) => {
    if (row.sales_count > 0 && row.sales_currency === null)
      throw new Error(`agent ${row.msisdn} sold in more than one currency in a day`);
    const float = (balance: string | null, held: string | null) =>
      balance === null ? null : { balance: money(currency, balance), held: money(currency, held) };
    return {
      msisdn: row.msisdn,
      name: row.name,
      sales: { count: row.sales_count, value: money(row.sales_currency ?? currency, row.sales_value) },
      floatIn: money(currency, row.float_in),
      floatOut: money(currency, row.float_out),
      commission: money(currency, row.commission),
      transfersIn: money(currency, row.transfers_in),
      transfersOut: money(currency, row.transfers_out),
      opening: float(row.opening_balance, row.opening_held),
      closing: float(row.closing_balance, row.closing_held),
    };
  });
}

async function openLines(tx: Queryable, to: string): Promise<OpenLine[]> {
  // Open = not in a state nothing more happens to (RETAINED_STATES: succeeded, failed,
  // resolved): on its way, or waiting for an operator (needs_attention). The state each had at
  // the day's end is its last transition before it; the candidates are the purchases open now
  // and those that moved since (a settled one may have been open then).
  const result = await tx.query<{ state: PurchaseState; currency: string; count: number; amount: string }>(
    `WITH candidates AS (
       SELECT id FROM purchases WHERE state <> ALL($2) AND created_at < $1::timestamptz
       UNION
       SELECT purchase_id FROM purchase_transitions WHERE at >= $1::timestamptz
     ),
     as_of AS (
       SELECT DISTINCT ON (t.purchase_id) t.purchase_id, t.to_state
         FROM purchase_transitions t JOIN candidates c ON c.id = t.purchase_id
        WHERE t.at < $1::timestamptz
        ORDER BY t.purchase_id, t.version DESC
     )
     SELECT a.to_state AS state, p.currency::text AS currency, count(*)::int AS count,
            sum(p.amount_minor)::text AS amount
       FROM as_of a JOIN purchases p ON p.id = a.purchase_id
      WHERE a.to_state <> ALL($2)
      GROUP BY a.to_state, p.currency`,
    [to, [...RETAINED_STATES]],
  );
  const order = (state: string) => PURCHASE_STATES.indexOf(state as PurchaseState);
  return result.rows
    .map((row) => ({ state: row.state, count: row.count, amount: money(row.currency, row.amount) }))
    .sort((a, b) => order(a.state) - order(b.state) || a.amount.currency.localeCompare(b.amount.currency));
}

/** Succeeded purchases of one local hour (0–23) and product, per currency. */
export interface HourLine {
  hour: number;
  productType: string;
  count: number;
  amount: Money;
}

/**
 * The day's sales per local hour and product (the console's chart): the purchases the daily
 * report counts, each at the hour it entered `succeeded`.
 */
export async function hourlySales(
  db: Database,
  options: DailyReportOptions,
): Promise<{ date: string; timeZone: string; hours: HourLine[] }> {
  const { date, timeZone } = checkOptions(options);
  const result = await db.query<{
    hour: number;
    product_type: string;
    currency: string;
    count: number;
    amount: string;
  }>(
    `WITH bounds AS (
       SELECT ($1::date)::timestamp AT TIME ZONE $2 AS from_at, ($1::date + 1)::timestamp AT TIME ZONE $2 AS to_at
     ),
     of_day AS (
       SELECT t.purchase_id, t.at
         FROM purchase_transitions t, bounds b
        WHERE t.to_state = 'succeeded' AND t.from_state IS DISTINCT FROM 'succeeded'
          AND t.at >= b.from_at AND t.at < b.to_at
          AND NOT EXISTS (
            SELECT 1 FROM purchase_transitions e
             WHERE e.purchase_id = t.purchase_id AND e.version < t.version
               AND e.to_state = 'succeeded' AND e.from_state IS DISTINCT FROM 'succeeded')
     )
     SELECT extract(hour FROM (of_day.at AT TIME ZONE $2))::int AS hour, p.product_type,
            p.currency::text AS currency, count(*)::int AS count, sum(p.amount_minor)::text AS amount
       FROM purchases p JOIN of_day ON of_day.purchase_id = p.id
      WHERE p.state = 'succeeded'
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3`,
    [date, timeZone],
  );
  return {
    date,
    timeZone,
    hours: result.rows.map((row) => ({
      hour: row.hour,
      productType: row.product_type,
      count: row.count,
      amount: money(row.currency, row.amount),
    })),
  };
}
