/**
 * A dealer's rules, one home for both channels (SMS `TRANSFER`, the USSD "Transfer float"): which
 * agent is the dealer's retailer, and a float transfer to it with the words each side is told.
 * The channels deliver the texts; nothing here sends.
 */
import { createHash } from 'node:crypto';
import type { AgentFloat } from './float';
import type { AgentRegistry } from './registry';
import type { Agent } from './types';

/** A text to say, by its locale key (`sms.agent.*`). */
export interface AgentText {
  key: string;
  params: Record<string, string>;
}

export type RetailerTransfer =
  | {
      status: 'transferred';
      retailer: Agent;
      /** The transfer's ledger reference: also the SMS ids' stem (`<reference>:in`, `:out`). */
      reference: string;
      dealerMinor: number;
      retailerMinor: number;
      /** The retailer's SMS (in its own language) and the dealer's answer. */
      received: AgentText;
      sent: AgentText;
    }
  | { status: 'insufficient'; availableMinor: number }
  | { status: 'not_retailer' }
  /**
   * The reference was used before for a transfer with another amount or retailer (a request key
   * reused with other details): nothing moved (the caller logs it, naming the reference).
   */
  | { status: 'conflict'; reference: string };

/** The dealer's own retailer at `msisdn` (E.164), else null: the one ownership rule. */
export async function retailerOf(
  registry: Pick<AgentRegistry, 'get'>,
  dealer: Pick<Agent, 'msisdn'>,
  msisdn: string,
): Promise<Agent | null> {
  const retailer = await registry.get(msisdn);
  return retailer && retailer.dealerMsisdn === dealer.msisdn ? retailer : null;
}

/** One request, one transfer: the ledger reference of a request key (a message's, a dialogue's). */
export function transferReference(requestKey: string): string {
  return `transfer:${createHash('sha256').update(requestKey).digest('hex').slice(0, 40)}`;
}

/**
 * Float from the dealer to its retailer, once per request key (the same request again answers
 * as the first did, nothing moved twice), with the texts each side is told.
 */
export async function transferToRetailer(
  agents: { registry: Pick<AgentRegistry, 'get'>; float: Pick<AgentFloat, 'transfer' | 'format'> },
  dealer: Agent,
  msisdn: string,
  amountMinor: number,
  requestKey: string,
): Promise<RetailerTransfer> {
  const retailer = await retailerOf(agents.registry, dealer, msisdn);
  if (!retailer) return { status: 'not_retailer' };
  const { float } = agents;
  const reference = transferReference(requestKey);
  const moved = await float.transfer(dealer, retailer.msisdn, amountMinor, reference);
  switch (moved.status) {
    case 'transferred':
    case 'duplicate': {
      const amount = float.format(amountMinor);
      return {
        status: 'transferred',
        retailer,
        reference,
        dealerMinor: moved.dealerMinor,
        retailerMinor: moved.retailerMinor,
        received: {
          key: 'sms.agent.transferReceived',
          params: { amount, from: dealer.name, balance: float.format(moved.retailerMinor) },
        },
        sent: {
          key: 'sms.agent.transferSent',
          params: {
            amount,
            to: `${retailer.name} (${retailer.msisdn})`,
            balance: float.format(moved.dealerMinor),
          },
        },
      };
    }
    case 'insufficient':
      return { status: 'insufficient', availableMinor: moved.availableMinor };
    case 'conflict':
      return { status: 'conflict', reference };
    default:
      return { status: 'not_retailer' };
  }
}
