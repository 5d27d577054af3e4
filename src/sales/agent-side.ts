import type { Agent, Agents } from '../agents';
import { accountRefusalOf, saleRefusalOf } from '../agents/refusal';
import { localTime } from '../i18n/local-time';
import { componentLogger, maskMsisdn } from '../observability/logger';
import type { PurchaseSettlement } from '../purchases/hand-over';
import type { PurchaseRecord } from '../purchases/types';
import type { SpendRefusal } from '../spend/rules';
import type { Money } from '../vas/money';

const log = componentLogger('agents');

/**
 * A field agent's side of a sale, the same for every channel: the sale checked against the
 * agent's account, float and limits (nothing held), its total held on the float under the
 * purchase key before the purchase is created, the hold released when nothing was bought, and
 * settled when the purchase settles — by the purchase lifecycle (this is its settlement hook),
 * whether or not an SMS is ever composed.
 *
 * A seller given as a number is read from the registry first (disabled, BLOCKed or locked since
 * its PIN was checked: refused, saying so); given as an {@link Agent}, the caller has just read it.
 * An assistant sells from its outlet's float, within the outlet's limits (the outlet must be able
 * to sell too); its sales carry its own number (`intent.agent.msisdn`), and the float they move is
 * the outlet's, found here each time.
 */
export class AgentSide implements PurchaseSettlement {
  readonly registry: Agents['registry'];
  readonly float: Agents['float'];

  constructor(
    agents: Pick<Agents, 'registry' | 'float'>,
    private readonly timeZone: string,
  ) {
    this.registry = agents.registry;
    this.float = agents.float;
  }

  /** A sale of `minor` (an amount, or a quote's total) against the float and limits: why not, or null. */
  async check(seller: Agent | string, minor: number): Promise<SpendRefusal | null> {
    const agent = await this.seller(seller);
    if ('refusal' in agent) return agent.refusal;
    return saleRefusalOf(this.float, await this.float.checkSale(agent, minor));
  }

  /**
   * Hold a sale's total under the purchase key (the same key and total again: held once); the
   * refusal when the agent, the float or the limits refuse, with nothing held.
   */
  async hold(seller: Agent | string, purchaseKey: string, totalMinor: number): Promise<SpendRefusal | null> {
    const agent = await this.seller(seller);
    if ('refusal' in agent) return agent.refusal;
    const held = await this.float.reserve(agent, purchaseKey, totalMinor);
    return held.status === 'insufficient' || held.status === 'over_limit'
      ? saleRefusalOf(this.float, held)
      : null;
  }

  /** Nothing was bought under `purchaseKey`: the float gets its hold back (none held: nothing). */
  async release(msisdn: string, purchaseKey: string): Promise<void> {
    await this.float.release(await this.floatOwnerOf(msisdn), purchaseKey);
  }

  /**
   * The lifecycle's hook for a settled purchase: `succeeded` spends the hold, `failed`
   * (definitive) gives it back, `needs_attention` keeps it until an operator or a re-check
   * decides; `resolved` (an operator closed it) follows the resolution's outcome: `sold` spends
   * it (with its commission), `not_sold` gives it back — never left held for the orphan-hold
   * sweep to release once retention deletes the record. Keyed by the purchase's idempotency key,
   * as the hold was: run again (a crash, the sweep), nothing moves twice.
   */
  async settled(record: PurchaseRecord): Promise<void> {
    const seller = record.intent.agent?.msisdn;
    if (!seller) return;
    const msisdn = await this.floatOwnerOf(seller);
    const outcome = record.state === 'resolved' ? record.resolution?.outcome : undefined;
    if (record.state === 'succeeded' || outcome === 'sold') await this.settleSucceeded(msisdn, record);
    else if (record.state === 'failed' || outcome === 'not_sold')
      await this.float.release(msisdn, record.idempotencyKey);
    else
      log.warn(
        record.state === 'resolved'
          ? 'AGENT SALE RESOLVED WITHOUT AN OUTCOME: its float hold is kept'
          : 'agent sale needs attention: its float hold is kept',
        { agent: maskMsisdn(msisdn), purchaseId: record.id },
      );
  }

  /**
   * A sale succeeded: its hold spent and its commission credited (the float owner's policy; a
   * retailer's dealer gets its share), in one call of the ledger: once per purchase, whatever runs
   * it again. Earned only here: never on a failed sale, nor while the outcome is unknown.
   */
  private async settleSucceeded(msisdn: string, record: PurchaseRecord): Promise<void> {
    const owner = await this.registry.get(msisdn);
    if (!owner) {
      await this.float.settle(msisdn, record.idempotencyKey);
      return;
    }
    const dealer = owner.dealerMsisdn ? await this.registry.get(owner.dealerMsisdn) : null;
    const serviceCommission = record.result?.commission;
    const commission = this.float.commissionFor(owner, dealer, {
      productType: record.intent.productType,
      amountMinor: record.intent.amount.minor,
      serviceCommissionMinor:
        serviceCommission && serviceCommission.currency === this.float.currency
          ? serviceCommission.minor
          : null,
    });
    await this.float.settleSale(msisdn, record.idempotencyKey, commission);
  }

  /** The number whose float a seller sells from: an assistant's outlet, else its own. */
  async floatOwnerOf(msisdn: string): Promise<string> {
    return (await this.registry.get(msisdn))?.outletMsisdn ?? msisdn;
  }

  /** What a settled sale earned its float owner (null: none, not an agent's sale, or not settled yet). */
  async saleCommission(record: PurchaseRecord): Promise<Money | null> {
    const seller = record.intent.agent?.msisdn;
    if (!seller) return null;
    const minor = await this.float.saleCommission(await this.floatOwnerOf(seller), record.idempotencyKey);
    return minor > 0 ? this.float.money(minor) : null;
  }

  /** A float agent's float, available and held (null: funded by an account, or no agent). */
  async floatOf(seller: string): Promise<{ available: Money; held: Money } | null> {
    const msisdn = await this.floatOwnerOf(seller);
    const agent = await this.registry.get(msisdn);
    if (!agent || agent.funding.kind !== 'float') return null;
    const balance = await this.float.balance(msisdn);
    return { available: this.float.money(balance.availableMinor), held: this.float.money(balance.heldMinor) };
  }

  /** The agent whose float and limits a sale uses (an assistant's outlet), or why it cannot sell. */
  private async seller(seller: Agent | string): Promise<Agent | { refusal: SpendRefusal }> {
    const agent = typeof seller === 'string' ? await this.registry.get(seller) : seller;
    const stopped = this.stopped(agent);
    if (stopped || !agent) return { refusal: stopped ?? { code: 'agent_disabled', reason: 'not_agent' } };
    if (!agent.outletMsisdn) return agent;
    const outlet = await this.registry.get(agent.outletMsisdn);
    const outletStopped = this.stopped(outlet);
    return outletStopped || !outlet
      ? { refusal: outletStopped ?? { code: 'agent_disabled', reason: 'not_agent' } }
      : outlet;
  }

  private stopped(agent: Agent | null): SpendRefusal | null {
    return accountRefusalOf(agent, (at) => localTime(at, this.timeZone));
  }
}
