import { formatMoney, type Money } from '../vas/money';
import type { StatementLine, StatementProvider } from './statements/types';
import type { DayInput, DayMatch, FoundMismatch, LedgerTotals, OurPayment, OurRefund } from './types';

/**
 * The match of one day, pure: every statement line to at most one payment or refund of ours and
 * every one of ours to at most one line (by receipt, then by our reference, then by payer and
 * amount), and what is left or disagrees as mismatches, each with one key per fact. Nothing is
 * read or written here: `reconcile.ts` loads and stores; a test or the bench builds `DayInput`.
 */

const STATEMENT_PROVIDERS: readonly string[] = ['mpesa', 'momo'];
/** A second charge of one payer for one amount this close to the first is one prompt paid twice. */
export const PAID_TWICE_WINDOW_MS = 30 * 60_000;
/** A payment known without its receipt (a query's answer) is matched to a line this close in time. */
const NO_RECEIPT_WINDOW_MS = 10 * 60_000;

const IN_FLIGHT_STATES = new Set(['created', 'confirming', 'unknown', 'reconciling']);
/** Refund states in which the money is (or is being) given back through the once-only path. */
const REFUND_UNDER_WAY = new Set(['requested', 'refunded', 'needs_attention']);

const money = (m: Money) => formatMoney(m);

function totals(amounts: Money[]): LedgerTotals {
  const by = new Map<string, number>();
  for (const a of amounts) by.set(a.currency, (by.get(a.currency) ?? 0) + a.minor);
  return {
    count: amounts.length,
    total: [...by].sort(([a], [b]) => a.localeCompare(b)).map(([currency, minor]) => ({ currency, minor })),
  };
}

const lineFacts = (l: StatementLine) => ({
  provider: l.provider,
  receipt: l.receipt,
  completedAt: l.completedAt.toISOString(),
  kind: l.kind,
  amount: money(l.amount),
  payer: l.payer,
  accountReference: l.accountReference,
  linkedReceipt: l.linkedReceipt,
  details: l.details,
});

const paymentFacts = (p: OurPayment) => ({
  paymentId: p.id,
  purchaseId: p.purchaseId,
  provider: p.provider,
  payer: p.payer,
  amount: money(p.amount),
  receipt: p.receipt,
  providerReference: p.providerReference,
  paidAt: p.paidAt.toISOString(),
  paymentState: p.state,
  purchaseState: p.purchase?.state ?? 'float top-up',
  refund: p.refund && { id: p.refund.id, state: p.refund.state, amount: money(p.refund.amount) },
});

const sameMoney = (a: Money, b: Money) => a.currency === b.currency && a.minor === b.minor;

export function matchDay(input: DayInput): DayMatch {
  const found: FoundMismatch[] = [];
  const add = (m: FoundMismatch) => found.push(m);
  let matched = 0;
  let matchedLate = 0;

  const paymentLines = input.lines.filter((l) => l.kind === 'payment');
  const refundLines = input.lines.filter((l) => l.kind === 'refund');
  const byReceipt = new Map(paymentLines.map((l) => [`${l.provider} ${l.receipt}`, l]));
  const byReference = new Map<string, StatementLine>();
  for (const l of paymentLines)
    if (l.accountReference) byReference.set(`${l.provider} ${l.accountReference}`, l);
  const used = new Set<StatementLine>();
  /** Which line each of our payments took (for paid twice). */
  const lineOf = new Map<OurPayment, StatementLine>();

  const elsewhere = new Map<string, StatementLine>();
  for (const l of input.linesElsewhere) {
    elsewhere.set(`${l.provider} ${l.receipt}`, l);
    if (l.accountReference) elsewhere.set(`${l.provider} ref ${l.accountReference}`, l);
    if (l.linkedReceipt) elsewhere.set(`${l.provider} link ${l.linkedReceipt}`, l);
  }

  const takeLine = (p: OurPayment): StatementLine | undefined => {
    const provider = p.provider;
    const free = (l: StatementLine | undefined) => (l && !used.has(l) ? l : undefined);
    let line = p.receipt ? free(byReceipt.get(`${provider} ${p.receipt}`)) : undefined;
    // MoMo's statement names our reference (externalId) beside its own Id.
    line ??= free(byReference.get(`${provider} ${p.id}`));
    if (!line && !p.receipt)
      line = paymentLines.find(
        (l) =>
          !used.has(l) &&
          l.provider === provider &&
          l.payer === p.payer &&
          sameMoney(l.amount, p.amount) &&
          Math.abs(l.completedAt.getTime() - p.paidAt.getTime()) <= NO_RECEIPT_WINDOW_MS,
      );
    if (line) used.add(line);
    return line;
  };

  const providersWithPayments = new Set<string>();
  for (const p of input.payments) {
    providersWithPayments.add(p.provider);
    const statementKnown =
      STATEMENT_PROVIDERS.includes(p.provider) && input.statementDays.has(p.provider as StatementProvider);
    const sold = p.purchase === null || p.purchase.state === 'succeeded';
    if (statementKnown) {
      const line = takeLine(p);
      if (line) {
        matched += 1;
        lineOf.set(p, line);
        if (!sameMoney(line.amount, p.amount))
          add({
            factKey: `amount_differs:${p.id}:${line.receipt}`,
            reason: 'amount_differs',
            purchaseId: p.purchaseId,
            paymentId: p.id,
            amount: p.amount,
            facts: { ours: paymentFacts(p), statement: lineFacts(line) },
            action: 'investigate',
            summary: `we recorded ${money(p.amount)}, the statement says ${money(line.amount)} (receipt ${line.receipt})`,
          });
      } else {
        const late =
          (p.receipt && elsewhere.get(`${p.provider} ${p.receipt}`)) ||
          elsewhere.get(`${p.provider} ref ${p.id}`);
        const end = input.coverageEnd[p.provider as StatementProvider];
        if (late) {
          matchedLate += 1;
          if (!sameMoney(late.amount, p.amount))
            add({
              factKey: `amount_differs:${p.id}:${late.receipt}`,
              reason: 'amount_differs',
              purchaseId: p.purchaseId,
              paymentId: p.id,
              amount: p.amount,
              facts: { ours: paymentFacts(p), statement: lineFacts(late) },
              action: 'investigate',
              summary: `we recorded ${money(p.amount)}, the statement says ${money(late.amount)} (receipt ${late.receipt})`,
            });
        } else if (
          input.to.getTime() - p.paidAt.getTime() <= input.lateWindowMs &&
          (!end || end.getTime() < input.to.getTime())
        )
          add({
            factKey: `late_settlement:${p.id}`,
            reason: 'late_settlement',
            purchaseId: p.purchaseId,
            paymentId: p.id,
            amount: p.amount,
            facts: { ours: paymentFacts(p), statement: null },
            action: 'nothing',
            summary: `paid ${p.paidAt.toISOString()}, at the day's end: import the next day's statement (it closes by itself once matched)`,
          });
        else if (sold || !p.refund || !REFUND_UNDER_WAY.has(p.refund.state))
          add({
            factKey: `vended_not_paid:${p.id}`,
            reason: 'vended_not_paid',
            purchaseId: p.purchaseId,
            paymentId: p.id,
            amount: p.amount,
            facts: { ours: paymentFacts(p), statement: null },
            action: sold ? 'write_off' : 'investigate',
            summary: sold
              ? `sold for ${money(p.amount)} the ${p.provider} statement never collected: collect from the buyer or write it off`
              : `we hold ${money(p.amount)} as paid the ${p.provider} statement never collected: check with the provider before any refund`,
          });
      }
    }
    // Paid, not sold, and not being given back: the buyer's money is with us for nothing.
    const purchase = p.purchase;
    const inFlight =
      purchase !== null &&
      IN_FLIGHT_STATES.has(purchase.state) &&
      input.now.getTime() - p.paidAt.getTime() < input.inFlightMs;
    if (
      purchase &&
      purchase.state !== 'succeeded' &&
      !inFlight &&
      !(p.refund && REFUND_UNDER_WAY.has(p.refund.state))
    ) {
      const definitive = purchase.state === 'failed' && purchase.failureCharged === false;
      add({
        factKey: `paid_not_vended:${p.id}`,
        reason: 'paid_not_vended',
        purchaseId: p.purchaseId,
        paymentId: p.id,
        amount: p.amount,
        facts: { ours: paymentFacts(p), statement: lineOf.has(p) ? lineFacts(lineOf.get(p)!) : null },
        action: definitive ? 'refund' : 'vend',
        summary: definitive
          ? `paid ${money(p.amount)}, the vend failed for good and nothing was given back: refund through the payment's refund path`
          : `paid ${money(p.amount)}, purchase ${purchase.state}: find the vend's outcome (purchases reconcile) before any refund`,
      });
    }
  }

  // Lines of the day no payment of this day took.
  const otherByReceipt = new Map<string, OurPayment>();
  const otherByReference = new Map<string, OurPayment>();
  for (const p of input.paymentsElsewhere) {
    if (p.receipt) otherByReceipt.set(`${p.provider} ${p.receipt}`, p);
    otherByReference.set(`${p.provider} ${p.id}`, p);
  }
  const firstCharges = [...lineOf.entries()];
  for (const line of paymentLines) {
    if (used.has(line)) continue;
    const key = `${line.provider} ${line.receipt}`;
    const earlier =
      otherByReceipt.get(key) ??
      (line.accountReference ? otherByReference.get(`${line.provider} ${line.accountReference}`) : undefined);
    if (earlier) {
      matchedLate += 1;
      continue;
    }
    const twice = firstCharges.find(
      ([p, first]) =>
        first.provider === line.provider &&
        first.payer === line.payer &&
        sameMoney(first.amount, line.amount) &&
        (first.accountReference ?? null) === (line.accountReference ?? null) &&
        Math.abs(first.completedAt.getTime() - line.completedAt.getTime()) <= PAID_TWICE_WINDOW_MS &&
        p.provider === line.provider,
    );
    if (twice) {
      const [p, first] = twice;
      add({
        factKey: `paid_twice:${line.provider}:${line.receipt}`,
        reason: 'paid_twice',
        purchaseId: p.purchaseId,
        paymentId: p.id,
        amount: line.amount,
        facts: { ours: paymentFacts(p), statement: { first: lineFacts(first), second: lineFacts(line) } },
        action: 'refund',
        summary: `the payer was charged ${money(line.amount)} twice (${first.receipt}, ${line.receipt}) for one purchase: give the second back with the provider's reversal`,
      });
    } else
      add({
        factKey: `statement_payment_unknown:${line.provider}:${line.receipt}`,
        reason: 'statement_payment_unknown',
        purchaseId: null,
        paymentId: null,
        amount: line.amount,
        facts: { statement: lineFacts(line) },
        action: 'investigate',
        summary: `${money(line.amount)} in (${line.receipt}) that no payment of ours holds: find the buyer, then vend by hand or give it back`,
      });
  }

  // Refunds: ours to the statement's reversals, and the other way.
  const paymentsById = new Map([...input.payments, ...input.paymentsElsewhere].map((p) => [p.id, p]));
  const usedRefundLines = new Set<StatementLine>();
  const refundLine = (r: OurRefund): StatementLine | undefined => {
    const p = paymentsById.get(r.paymentId);
    return refundLines.find(
      (l) =>
        !usedRefundLines.has(l) &&
        ((p?.receipt && l.linkedReceipt === p.receipt && l.provider === p.provider) ||
          l.accountReference === r.id ||
          (r.providerReference !== null && l.accountReference === r.providerReference)),
    );
  };
  for (const r of input.refunds) {
    const p = paymentsById.get(r.paymentId);
    if (
      !p ||
      !STATEMENT_PROVIDERS.includes(p.provider) ||
      !input.statementDays.has(p.provider as StatementProvider)
    )
      continue;
    const line = refundLine(r);
    if (line) {
      usedRefundLines.add(line);
      matched += 1;
      continue;
    }
    const late =
      (p.receipt && elsewhere.get(`${p.provider} link ${p.receipt}`)) ||
      elsewhere.get(`${p.provider} ref ${r.id}`);
    if (late) {
      matchedLate += 1;
      continue;
    }
    add({
      factKey: `refund_not_in_statement:${r.id}`,
      reason: 'refund_not_in_statement',
      purchaseId: p.purchaseId,
      paymentId: p.id,
      amount: r.amount,
      facts: {
        ours: { ...paymentFacts(p), refundDecidedAt: r.decidedAt?.toISOString() ?? null },
        statement: null,
      },
      action: 'investigate',
      summary: `refunded ${money(r.amount)} by our records, but the ${p.provider} statement shows no reversal: ask the provider; the buyer may not have the money back`,
    });
  }
  for (const line of refundLines) {
    if (usedRefundLines.has(line)) continue;
    const ref = line.accountReference;
    const earlier =
      (line.linkedReceipt && otherByReceipt.get(`${line.provider} ${line.linkedReceipt}`)) ||
      (ref !== null &&
        [...paymentsById.values()].find(
          (p) => p.refund && (p.refund.id === ref || p.refund.providerReference === ref),
        ));
    if (earlier) {
      matchedLate += 1;
      continue;
    }
    add({
      factKey: `statement_payment_unknown:${line.provider}:${line.receipt}`,
      reason: 'statement_payment_unknown',
      purchaseId: null,
      paymentId: null,
      amount: line.amount,
      facts: { statement: lineFacts(line) },
      action: 'investigate',
      summary: `${money(line.amount)} given back (${line.receipt}) that no refund of ours asked for`,
    });
  }

  // The wallet: it moved by exactly our sales and the operator's top-ups, or it drifted.
  const missing: string[] = [];
  for (const provider of [...providersWithPayments].filter((p) => STATEMENT_PROVIDERS.includes(p)))
    if (!input.statementDays.has(provider as StatementProvider)) missing.push(`${provider} statement`);
  let wallet: DayMatch['wallet'] = null;
  const w = input.wallet;
  if (w) {
    let drift: Money | null = null;
    if (w.opening && w.closing) {
      const expected = w.opening.balance.minor - w.sales.minor + w.topups.minor;
      drift = { currency: w.closing.balance.currency, minor: w.closing.balance.minor - expected };
      if (drift.minor !== 0)
        add({
          factKey: `wallet_drift:${w.accountId}:${input.day}`,
          reason: 'wallet_drift',
          purchaseId: null,
          paymentId: null,
          amount: drift,
          facts: {
            wallet: {
              accountId: w.accountId,
              opening: { at: w.opening.at.toISOString(), balance: money(w.opening.balance) },
              closing: { at: w.closing.at.toISOString(), balance: money(w.closing.balance) },
              sales: money(w.sales),
              salesCount: w.salesCount,
              topups: money(w.topups),
              expected: money({ currency: w.closing.balance.currency, minor: expected }),
            },
          },
          action: 'investigate',
          summary: `the wallet moved by ${money(drift)} more than our ${w.salesCount} sales and the declared top-ups: a debit or credit made outside the gateway`,
        });
    } else missing.push(`wallet balances at the day's boundaries (account ${w.accountId})`);
    wallet = {
      accountId: w.accountId,
      opening: w.opening && money(w.opening.balance),
      closing: w.closing && money(w.closing.balance),
      sales: money(w.sales),
      salesCount: w.salesCount,
      topups: money(w.topups),
      drift: drift && money(drift),
    };
  }

  return {
    day: input.day,
    from: input.from.toISOString(),
    to: input.to.toISOString(),
    statement: {
      providers: [...input.statementDays].sort(),
      lines: input.lines.length,
      payments: totals(paymentLines.map((l) => l.amount)),
      refunds: totals(refundLines.map((l) => l.amount)),
      other: input.lines.length - paymentLines.length - refundLines.length,
    },
    ours: {
      payments: totals(input.payments.map((p) => p.amount)),
      refunds: totals(input.refunds.map((r) => r.amount)),
      notInStatementProviders: [...providersWithPayments]
        .filter((p) => !STATEMENT_PROVIDERS.includes(p))
        .sort(),
    },
    wallet,
    matched,
    matchedLate,
    missing,
    mismatches: found,
  };
}
