/**
 * The providers' statements of the sandbox's ledger, in their real formats: M-Pesa's
 * organisation portal export (CSV), Daraja's Pull Transactions answer (JSON) and MTN MoMo's
 * partner portal export (CSV). What the ledger holds is what they show: paid prompts, money in
 * without a prompt (a direct payment, a second charge), completed refunds — except a refund the
 * provider "dropped", which it said it made and never did.
 */
import type { Money } from '../../vas/money';
import type { Ledger, Wire } from './ledger';

export interface StatementEntry {
  receipt: string;
  wire: Wire;
  at: Date;
  direction: 'in' | 'out';
  amount: Money;
  msisdn: string;
  /** Daraja's AccountReference; MoMo's externalId. */
  reference: string;
  /** The receipt a reversal gives back. */
  linked: string | null;
}

/** Every entry of one wire, oldest first. */
export function statementEntries(ledger: Ledger, wire: Wire): StatementEntry[] {
  const entries: StatementEntry[] = [];
  for (const p of ledger.allPayments()) {
    if (p.wire !== wire || !p.receipt || !p.completedAt || p.state !== 'successful') continue;
    entries.push({
      receipt: p.receipt,
      wire,
      at: p.completedAt,
      direction: 'in',
      amount: p.amount,
      msisdn: p.msisdn,
      reference: wire === 'daraja' ? p.payee : (p.wireData.externalId ?? p.id),
      linked: null,
    });
  }
  for (const d of ledger.directPayments())
    if (d.wire === wire)
      entries.push({
        receipt: d.receipt,
        wire,
        at: d.completedAt,
        direction: 'in',
        amount: d.amount,
        msisdn: d.msisdn,
        reference: d.accountReference,
        linked: null,
      });
  for (const r of ledger.allRefunds()) {
    if (r.wire !== wire || r.state !== 'successful' || !r.receipt || !r.completedAt || r.dropped) continue;
    const original = r.paymentId ? ledger.payment(r.paymentId) : undefined;
    entries.push({
      receipt: r.receipt,
      wire,
      at: r.completedAt,
      direction: 'out',
      amount: r.amount,
      msisdn: original?.msisdn ?? '',
      reference: wire === 'daraja' ? (original?.payee ?? '') : (r.wireData.externalId ?? r.id),
      linked: original?.receipt ?? null,
    });
  }
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime() || a.receipt.localeCompare(b.receipt));
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** `2026-12-01 14:23:11` in `zone` (sv-SE writes dates and times this way). */
export function wallClock(at: Date, zone: string): string {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  return f.format(at);
}

const units = (minor: number): string => {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

const cell = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const row = (values: string[]): string => values.map(cell).join(',');

/** The account's balance after each entry, from the sandbox's start (the statement's Balance column). */
function withBalances(entries: StatementEntry[]): Array<StatementEntry & { balance: number }> {
  let balance = 0;
  return entries.map((e) => {
    balance += e.direction === 'in' ? e.amount.minor : -e.amount.minor;
    return { ...e, balance };
  });
}

export const TEST_PAYER_NAME = 'SANDBOX PAYER';

/** M-Pesa's organisation portal statement export of [from, to), times in `zone` (EAT). */
export function mpesaPortalCsv(
  ledger: Ledger,
  options: { shortcode: string; from: Date; to: Date; zone: string; now: Date },
): string {
  const lines = [
    row(['Organization Name', 'Gateway Payment Sandbox']),
    row(['Organization Short Code', options.shortcode]),
    row([
      'Time Period',
      `From ${wallClock(options.from, options.zone)} To ${wallClock(new Date(options.to.getTime() - 1000), options.zone)}`,
    ]),
    row(['Operator', 'sandbox']),
    row(['Report Date', wallClock(options.now, options.zone)]),
    '',
    row([
      'Receipt No.',
      'Completion Time',
      'Initiation Time',
      'Details',
      'Transaction Status',
      'Paid In',
      'Withdrawn',
      'Balance',
      'Balance Confirmed',
      'Reason Type',
      'Other Party Info',
      'Linked Transaction ID',
      'A/C No.',
    ]),
  ];
  for (const e of withBalances(statementEntries(ledger, 'daraja'))) {
    if (e.at < options.from || e.at >= options.to) continue;
    const party = `${e.msisdn} - ${TEST_PAYER_NAME}`;
    const time = wallClock(e.at, options.zone);
    lines.push(
      e.direction === 'in'
        ? row([
            e.receipt,
            time,
            time,
            `Pay Bill Online from ${party} Acc. ${e.reference}`,
            'Completed',
            units(e.amount.minor),
            '',
            units(e.balance),
            'true',
            'Pay Bill Online',
            party,
            '',
            e.reference,
          ])
        : row([
            e.receipt,
            time,
            time,
            `Reversal of transaction ${e.linked ?? ''} to ${party}`,
            'Completed',
            '',
            `-${units(e.amount.minor)}`,
            units(e.balance),
            'true',
            'Reversal',
            party,
            e.linked ?? '',
            '',
          ]),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** MTN MoMo's partner portal statement export of [from, to), times in `zone`. */
export function momoPortalCsv(
  ledger: Ledger,
  options: { from: Date; to: Date; zone: string; merchant: string },
): string {
  const lines = [
    row([
      'Id',
      'External Transaction Id',
      'Date',
      'Status',
      'Type',
      'Provider Category',
      'Information',
      'Note Message',
      'From',
      'From Name',
      'From Handler Name',
      'To',
      'To Name',
      'To Handler Name',
      'Initiated By',
      'On Behalf Of',
      'Amount',
      'Currency',
      'Fee',
      'Discount',
      'Promotion',
      'Coupon',
      'Balance',
    ]),
  ];
  const merchant = `FRI:${options.merchant}/USER`;
  for (const e of withBalances(statementEntries(ledger, 'momo'))) {
    if (e.at < options.from || e.at >= options.to) continue;
    const payer = `FRI:${e.msisdn}/MSISDN`;
    const inward = e.direction === 'in';
    lines.push(
      row([
        e.receipt,
        e.reference,
        wallClock(e.at, options.zone),
        'SUCCESSFUL',
        inward ? 'DEBIT' : 'TRANSFER',
        '',
        inward ? 'Request to pay' : 'Refund',
        '',
        inward ? payer : merchant,
        inward ? TEST_PAYER_NAME : 'Merchant',
        '',
        inward ? merchant : payer,
        inward ? 'Merchant' : TEST_PAYER_NAME,
        '',
        inward ? e.msisdn : options.merchant,
        '',
        units(inward ? e.amount.minor : -e.amount.minor),
        e.amount.currency,
        '0.00',
        '0.00',
        '0.00',
        '0.00',
        units(e.balance),
      ]),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Transactions per page of the Pull Transactions answer. */
export const PULL_PAGE_SIZE = 1000;

/** Daraja's Pull Transactions answer: the money in of [from, to], a page from `offset`. */
export function darajaPull(
  ledger: Ledger,
  options: { from: Date; to: Date; offset: number; organisation: string },
): object {
  const page = statementEntries(ledger, 'daraja')
    .filter((e) => e.direction === 'in' && e.at >= options.from && e.at <= options.to)
    .slice(options.offset, options.offset + PULL_PAGE_SIZE);
  return {
    ResponseRefID: `${Date.now()}-${options.offset}`,
    ResponseCode: '1000',
    ResponseMessage: 'Success',
    Response: [
      page.map((e) => ({
        transactionId: e.receipt,
        trxDate: e.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        msisdn: e.msisdn,
        sender: 'MPESA',
        transactiontype: 'c2b-pay-bill-debit',
        billreference: e.reference,
        amount: units(e.amount.minor),
        organizationname: options.organisation,
      })),
    ],
  };
}
