/**
 * The dealer's actors (its retailers, a float transfer, disabling a retailer) and the agent's
 * commission for the float screen: promise actors over the injected services, each safe to run
 * twice — the reads are reads, a transfer is applied once per request key, a status change
 * asked twice is the same change.
 */
import { fromService } from '../../src/ussd/engine/dialogue';
import type { Money } from '../../src/vas/money';
import type { RetailerItem } from './context';

/** What a transfer answered: sent (both new balances), or why not (nothing moved). */
export type TransferAnswer =
  | { status: 'transferred'; amount: Money; dealerBalance: Money; retailerName: string }
  | { status: 'insufficient'; available: Money }
  | { status: 'not_retailer' }
  /** The request's reference was used for a transfer with other details: nothing moved. */
  | { status: 'conflict' };

/** Why a retailer cannot be added (src/agents/registrations.ts `RegistrationRefusal`). */
export type AddRefusal =
  'invalid_number' | 'invalid_name' | 'self' | 'agent' | 'blocked' | 'pending' | 'dealer_disabled';

/** Whether the number typed may be added (normalised), and what the request came to. */
export type AddCheckAnswer = { status: 'ok'; msisdn: string } | { status: AddRefusal };
export type AddAnswer =
  { status: 'registered' | 'pending'; name: string } | { status: 'refused'; reason: AddRefusal };

/** What a dealer's disable (or enable) of a retailer came to. */
export type SuperviseAnswer = 'done' | 'not_yours' | 'not_allowed';

/** What the dealer's screens may call. Every method must be safe to call twice with the same arguments. */
export interface DealerServices {
  /** The commission the float's owner earned today and this month (null: no float). */
  agentCommission?(msisdn: string): Promise<{ today: Money; month: Money } | null>;
  /** A dealer's retailers with their floats and today's sales. */
  dealerRetailers?(msisdn: string): Promise<RetailerItem[]>;
  /**
   * Float from the dealer to its retailer, once per request key (the same key again answers the
   * same, nothing moved twice); each side gets an SMS with its new balance.
   */
  dealerTransfer?(
    msisdn: string,
    retailer: string,
    minor: number,
    requestKey: string,
  ): Promise<TransferAnswer>;
  /** Whether the dealer may add the retailer at this number (a read). */
  dealerCheckRetailer?(msisdn: string, number: string): Promise<AddCheckAnswer>;
  /**
   * The dealer's request to add a retailer, once per request key: registered at once
   * (`DEALER_REGISTRATION=direct`) or waiting for an operator; the same key again answers the same.
   */
  dealerAddRetailer?(msisdn: string, number: string, name: string, requestKey: string): Promise<AddAnswer>;
  /** A dealer disables (or enables again) its own retailer: never one an operator disabled. */
  superviseRetailer?(
    msisdn: string,
    retailer: string,
    status: 'active' | 'disabled',
  ): Promise<SuperviseAnswer>;
}

function notProvided(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`the dialogue's "${name}" actor was not provided`));
}

type FloatView = { available: Money; held: Money } | null;

/** The actors' shapes, none of them provided. */
export const dealerUnprovided = {
  dealerRetailers: fromService<RetailerItem[], { msisdn: string }>(notProvided('dealerRetailers')),
  dealerTransfer: fromService<TransferAnswer, { msisdn: string; to: string; minor: number; key: string }>(
    notProvided('dealerTransfer'),
  ),
  dealerCheckRetailer: fromService<AddCheckAnswer, { msisdn: string; number: string }>(
    notProvided('dealerCheckRetailer'),
  ),
  dealerAddRetailer: fromService<AddAnswer, { msisdn: string; number: string; name: string; key: string }>(
    notProvided('dealerAddRetailer'),
  ),
  superviseRetailer: fromService<
    SuperviseAnswer,
    { msisdn: string; retailer: string; status: 'active' | 'disabled' }
  >(notProvided('superviseRetailer')),
};

/** Calls a service through the dialogue's reporting wrapper (actors.ts `call`). */
type Call = <T>(name: string, run: () => Promise<T>) => Promise<T>;

/** The dealer's actors over real services. */
export function dealerActors(services: DealerServices, call: Call): typeof dealerUnprovided {
  return {
    dealerRetailers: fromService(({ input }) =>
      call('dealerRetailers', async () =>
        services.dealerRetailers ? services.dealerRetailers(input.msisdn) : [],
      ),
    ),
    dealerTransfer: fromService(({ input }) =>
      call('dealerTransfer', async () =>
        services.dealerTransfer
          ? services.dealerTransfer(input.msisdn, input.to, input.minor, input.key)
          : ({ status: 'not_retailer' } as const),
      ),
    ),
    dealerCheckRetailer: fromService(({ input }) =>
      call('dealerCheckRetailer', async () =>
        services.dealerCheckRetailer
          ? services.dealerCheckRetailer(input.msisdn, input.number)
          : ({ status: 'dealer_disabled' } as const),
      ),
    ),
    dealerAddRetailer: fromService(({ input }) =>
      call('dealerAddRetailer', async () =>
        services.dealerAddRetailer
          ? services.dealerAddRetailer(input.msisdn, input.number, input.name, input.key)
          : ({ status: 'refused', reason: 'dealer_disabled' } as const),
      ),
    ),
    superviseRetailer: fromService(({ input }) =>
      call('superviseRetailer', async () =>
        services.superviseRetailer
          ? services.superviseRetailer(input.msisdn, input.retailer, input.status)
          : ('not_yours' as const),
      ),
    ),
  };
}

/** The float screen: the float and, beside it, the commission earned (a failed read shows none). */
export async function floatWithCommission(
  services: DealerServices & { agentFloat?(msisdn: string): Promise<FloatView> },
  msisdn: string,
): Promise<(NonNullable<FloatView> & { commission: { today: Money; month: Money } | null }) | null> {
  const float = services.agentFloat ? await services.agentFloat(msisdn) : null;
  if (!float) return null;
  const commission = services.agentCommission ? await services.agentCommission(msisdn) : null;
  return { ...float, commission };
}
