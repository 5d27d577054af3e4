import type { Agent } from '../agents';
import type { PaymentRecord } from '../payments/store/types';
import { checkIntent } from '../purchases/desk';
import type { PurchaseDesk, PurchaseIntent, PurchaseRecord } from '../purchases/types';
import type { Queryable } from '../records/database';
import { SpendRefusedError, type SpendRefusal } from '../spend/rules';
import type { Money } from '../vas/money';
import type { AgentSide } from './agent-side';

/** What a Buy hands the sale to. */
export interface BuyParts {
  desk: Pick<PurchaseDesk, 'create'>;
  /** Absent where no agents sell (an agent's intent is then refused as a stopped agent). */
  agentSide?: Pick<AgentSide, 'hold' | 'release'>;
  /**
   * Who collects a subscriber's money before the confirm (src/gateway/payments.ts); absent:
   * nothing is collected (PAYMENT_PROVIDER=none), the sale is on the operator's wallet.
   */
  payments?: {
    /**
     * The purchase's payment row, sent with the purchase's own statement on `tx` (the desk's
     * `alongside`): null when the purchase is not written.
     */
    writeRequest(candidate: PurchaseRecord, tx: Queryable, amount?: Money): Promise<PaymentRecord | null>;
    /** The PIN prompt for a committed payment row; never throws. */
    collect(payment: PaymentRecord): Promise<void>;
  };
}

/**
 * Buy a quoted sale: the one place a Buy (USSD) or a YES (SMS) becomes a purchase, keyed by
 * `purchaseKey` (the same key returns the same record). An agent's sale holds its quoted
 * `total` on the float first (`seller`: the agent as just read; else read again by its number),
 * unless the caller says it holds it already (`alreadyHeld`: the hold is one per key all the same).
 * A refusal — the agent, its float or limits, or the spending rules counted at creation — throws
 * {@link SpendRefusedError} with nothing bought and nothing held for it.
 * A subscriber's sale, where payments are wired, is created `paymentRequired` with its payment
 * row in one transaction, then the payer is asked once to pay `total` (the PIN prompt); the
 * purchase is confirmed only once paid. The Buy does not wait for the prompt: the channel ends
 * the dialogue at once.
 */
export async function buySale(
  parts: BuyParts,
  intent: PurchaseIntent,
  purchaseKey: string,
  total?: Money,
  seller?: Agent,
  /** The caller holds `total` under `purchaseKey` already (the SMS YES, before it claims the quote). */
  alreadyHeld = false,
): Promise<PurchaseRecord> {
  const agent = intent.agent;
  if (!agent) {
    const { paymentRequired: _asQuoted, ...asSold } = intent;
    const { payments } = parts;
    if (!payments) return parts.desk.create(asSold, purchaseKey);
    // The purchase and its payment row commit together (a crash leaves both or neither), and
    // the collect is sent only once both are committed.
    let requested: Promise<PaymentRecord | null> | undefined;
    const record = await parts.desk.create(
      { ...asSold, paymentRequired: true },
      purchaseKey,
      (candidate, tx) => (requested = payments.writeRequest(candidate, tx, total)),
    );
    // Once per purchase: a Buy run again writes no purchase, hence no payment row. Never awaited
    // by the dialogue.
    const payment = await requested;
    if (payment && payment.purchaseId === record.id) void payments.collect(payment);
    return record;
  }
  if (!total) return parts.desk.create(intent, purchaseKey);
  // What the desk would refuse is refused before the hold, so it never leaves one behind. A
  // write that fails after the hold (the purchase may or may not exist) is left to the
  // workers' sweep (releaseOrphanHolds), which releases a hold no purchase took.
  checkIntent(intent);
  const { agentSide } = parts;
  // Held once per key: a Buy run again (a restarted actor, a retried SMS job) holds nothing more.
  const refused: SpendRefusal | null = !agentSide
    ? { code: 'agent_disabled', reason: 'not_agent' }
    : alreadyHeld
      ? null
      : await agentSide.hold(seller ?? agent.msisdn, purchaseKey, total.minor);
  if (refused) throw new SpendRefusedError(refused);
  try {
    return await parts.desk.create(intent, purchaseKey);
  } catch (error) {
    // Refused by the spending rules: nothing was bought, the float gets its hold back.
    if (error instanceof SpendRefusedError) await agentSide!.release(agent.msisdn, purchaseKey);
    throw error;
  }
}
