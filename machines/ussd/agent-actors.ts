/**
 * The field agent's actors of the USSD dialogue (actors.ts spreads them into its list), over
 * {@link AgentServices}: the PIN checked and changed, the sale checked against the float and
 * limits, the float, the last sales with a receipt sent again, and the float top-up. Each is
 * safe to run twice (reads, or idempotent by the key the state hands over).
 */
import { fromService } from '../../src/ussd/engine/dialogue';
import type { SpendRefusal } from '../../src/spend/rules';
import type { Money } from '../../src/vas/money';
import type { AgentView, UssdContext } from './context';
import { floatWithCommission, type DealerServices } from './dealer-actors';

/** What a PIN check found. */
export type PinOutcome =
  | { status: 'ok'; mustChangePin: boolean; pinVersion: number }
  | { status: 'wrong'; attemptsLeft: number }
  | { status: 'locked'; until: string }
  | { status: 'disabled' }
  | { status: 'not_agent' };

/** A hashed PIN candidate: salt, hash and scrypt parameters — never the PIN. */
export interface PinHash {
  hash: string;
  salt: string;
  params: { N: number; r: number; p: number; keyLen: number };
}

/** What a top-up request answered: asked (the agent approves it on its phone) or not possible. */
export type TopUpAnswer = { status: 'requested'; amount: Money } | { status: 'unavailable' };

/** One of an agent's last sales as the "Last sales" screen shows it. */
export interface SaleItem {
  purchaseId: string;
  date: string;
  identifier: string;
  total: Money;
  state: string;
}

/** What an agent's half of the dialogue may call; absent: the agent features answer nothing. */
export interface AgentServices {
  /**
   * An agent's sale of `minor` checked against its float and limits (nothing held): the amount
   * screen asks with the amount typed, the quote again with the total the float would pay.
   */
  agentSaleCheck?(msisdn: string, minor: number): Promise<SpendRefusal | null>;
  /** AGENT_SERVICE_CODES, keyed (src/agents/service-codes.ts): the codes serving agents; empty: every code. */
  agentServiceCodes?: string[];
  /** The caller as a field agent, or null for a subscriber. */
  agentOf?(msisdn: string): Promise<Omit<AgentView, 'verified'> | null>;
  /** An agent's PIN checked (counting towards the lockout); the PIN is never kept. */
  verifyPin?(msisdn: string, pin: string): Promise<PinOutcome>;
  /** A float agent's float (null: funded by an account). */
  agentFloat?(msisdn: string): Promise<{ available: Money; held: Money } | null>;
  /** A new PIN checked and hashed (the hash may be kept between the PIN and its repetition). */
  newPinCandidate?(
    msisdn: string,
    pin: string,
  ): Promise<{ ok: true; candidate: PinHash } | { ok: false; problem: string }>;
  /** The repeated PIN against the candidate, then the change (only if the PIN checked is still the current one). */
  savePin?(
    msisdn: string,
    candidate: PinHash,
    repeated: string,
    pinVersion: number,
  ): Promise<'changed' | 'mismatch' | 'stale'>;
  /** The agent's last sales, newest first. */
  agentSales?(msisdn: string): Promise<SaleItem[]>;
  /**
   * A float agent's own top-up: a payment request to its phone of `minor`, once per request key
   * (`unavailable`: no payment provider, or not the float's owner).
   */
  agentTopUp?(msisdn: string, minor: number, requestKey: string): Promise<TopUpAnswer>;
  /** The agent's receipt of a sale again, by SMS; the same request key sends it once. */
  resendReceipt?(purchaseId: string, requestKey: string): Promise<void>;
}

function notProvided(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`the dialogue's "${name}" actor was not provided`));
}

/** The agent's actors' shapes, none of them provided. */
export const agentUnprovided = {
  verifyPin: fromService<PinOutcome, { msisdn: string; pin: string }>(notProvided('verifyPin')),
  agentSaleCheck: fromService<SpendRefusal | null, { msisdn: string; minor: number }>(
    notProvided('agentSaleCheck'),
  ),
  agentFloat: fromService<NonNullable<UssdContext['agentFloat']> | null, { msisdn: string }>(
    notProvided('agentFloat'),
  ),
  newPinCandidate: fromService<
    { ok: true; candidate: PinHash } | { ok: false; problem: string },
    { msisdn: string; pin: string }
  >(notProvided('newPinCandidate')),
  savePin: fromService<
    'changed' | 'mismatch' | 'stale',
    { msisdn: string; candidate: PinHash | null; repeated: string; pinVersion: number }
  >(notProvided('savePin')),
  agentSales: fromService<SaleItem[], { msisdn: string }>(notProvided('agentSales')),
  agentTopUp: fromService<TopUpAnswer, { msisdn: string; minor: number; key: string }>(
    notProvided('agentTopUp'),
  ),
  resendReceipt: fromService<void, { purchaseId: string; key: string }>(notProvided('resendReceipt')),
};

/** Calls a service through the dialogue's reporting wrapper (actors.ts `call`). */
type Call = <T>(name: string, run: () => Promise<T>) => Promise<T>;

/** The agent's actors over real services. */
export function agentActors(services: AgentServices & DealerServices, call: Call): typeof agentUnprovided {
  return {
    verifyPin: fromService(({ input }) =>
      call('verifyPin', async () => {
        if (!services.verifyPin) return { status: 'not_agent' } as const;
        return services.verifyPin(input.msisdn, input.pin);
      }),
    ),
    agentSaleCheck: fromService(({ input }) =>
      call('agentSaleCheck', async () =>
        services.agentSaleCheck ? services.agentSaleCheck(input.msisdn, input.minor) : null,
      ),
    ),
    // The float screen: with the commission earned today and this month, as BAL says it.
    agentFloat: fromService(({ input }) =>
      call('agentFloat', () => floatWithCommission(services, input.msisdn)),
    ),
    agentTopUp: fromService(({ input }) =>
      call('agentTopUp', async () =>
        services.agentTopUp
          ? services.agentTopUp(input.msisdn, input.minor, input.key)
          : ({ status: 'unavailable' } as const),
      ),
    ),
    newPinCandidate: fromService(({ input }) =>
      call('newPinCandidate', async () =>
        services.newPinCandidate
          ? services.newPinCandidate(input.msisdn, input.pin)
          : ({ ok: false, problem: 'format' } as const),
      ),
    ),
    savePin: fromService(({ input }) =>
      call('savePin', async () =>
        services.savePin && input.candidate
          ? services.savePin(input.msisdn, input.candidate, input.repeated, input.pinVersion)
          : ('stale' as const),
      ),
    ),
    agentSales: fromService(({ input }) =>
      call('agentSales', async () => (services.agentSales ? services.agentSales(input.msisdn) : [])),
    ),
    resendReceipt: fromService(({ input }) =>
      call('resendReceipt', async () => services.resendReceipt?.(input.purchaseId, input.key)),
    ),
  };
}
