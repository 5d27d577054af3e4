import type { DialogueEvent, LocalText } from '../../src/session/dialogue';
import type { Money } from '../../src/vas/money';
import type { PurchaseIntent } from '../../src/purchases/types';
import type { ProductType, VasProduct } from '../../src/vas/port';
import type { AmountRange } from '../../src/spend/rules';
import type { PromptName } from './screens';

/** The quote as shown and as bought: plain JSON (money in minor units). */
export interface QuoteView {
  /** The intent whose request the service validated; `order` hands it over unchanged. */
  intent: PurchaseIntent;
  subscriberDetails: string | null;
  units: string | null;
  amount: Money;
  charge: Money;
  total: Money;
  /**
   * The provider's own deduction (metadata `charge`: a fixed charge, debt recovery) when it
   * takes most of the amount, so few units are left: the quote says so. Null otherwise.
   */
  deducted: Money | null;
  /** An agent's sale from its float: what the float holds after it (null otherwise). */
  floatAfter?: Money | null;
}

/** The caller as a field agent, as the dialogue keeps it: never a PIN, only what the check found. */
export interface AgentView {
  status: 'active' | 'locked' | 'disabled';
  /** ISO time a lockout ends. */
  lockedUntil: string | null;
  /** Sales debit this purchase-service account (null: the agent's float). */
  accountId: number | null;
  /** The most one sale may be (minor units): the amount screen names and checks it before any quote. */
  maxSaleMinor?: number;
  /** The PIN was checked in this dialogue. */
  verified: boolean;
  /** The version of the PIN checked (a PIN change applies only if it is still the current one). */
  pinVersion?: number;
  /** A new PIN being chosen, hashed (never the PIN). */
  candidate?: {
    hash: string;
    salt: string;
    params: { N: number; r: number; p: number; keyLen: number };
  } | null;
}

/** One "My tokens" entry, reduced to what the screen shows and what resend needs. */
export interface TokenItem {
  purchaseId: string;
  /** Masked subscriber identifier (meter or phone number). */
  identifier: string;
  amount: Money;
  /** `YYYY-MM-DD` of the purchase, in the operator's time zone. */
  date: string;
}

/** A service error reduced to plain data (snapshots are JSON); its code picks the closing line. */
export interface DialogueError {
  code: string;
  message: string;
  param: string | null;
  /** The service's word on whether the same request may succeed later. */
  retryable?: boolean;
}

/** Gateway settings the dialogue reads, copied into the context when it starts. */
export interface DialogueSettings {
  /** Every locale: file code (`tn`), tag (`tn-BW`), display name (`Setswana`). */
  languages: Array<{ code: string; tag: string; name: string }>;
  /** Region for phone numbers when the language tag has none (`BW`). */
  defaultRegion: string;
  /** Wrong identifiers (or amounts) accepted before a polite end. */
  maxTries: number;
  /** The operator's amount range per product (SPEND_LIMITS), checked on the amount screen. */
  amounts: Partial<Record<ProductType, AmountRange>>;
}

/** Which invocation a "please try again" screen re-runs. */
export type StallTarget = 'catalogue' | 'quote' | 'order' | 'tokens' | 'resend';

/**
 * The purchase a dialogue is putting together, and how it is going (tries, a stalled call, the
 * last error): one field of the context, cleared as a whole on HOME. Grouped rather than spread
 * over the context because XState copies the whole context on every update (`assign`), and V8
 * keeps a copy of more than about 18 fields as a slow dictionary (measured: 8.4 µs a copy).
 */
export interface PurchaseDraft {
  productType: ProductType | null;
  providerCode: string | null;
  /** Airtime only: for the caller's own number or another one. */
  airtimeFor: 'self' | 'other' | null;
  /** Subscriber identifier as sent to the service (airtime: E.164 digits). */
  identifier: string | null;
  identifierTries: number;
  amountMinor: number | null;
  amountTries: number;
  /** `0` was typed on the amount screen once: it may mean Back or an amount, so it was asked. */
  backAsked: boolean;
  quote: QuoteView | null;
  stalled: StallTarget | null;
  lastError: DialogueError | null;
  /** An agent's sale: the customer's number, who gets the token. */
  customer?: string | null;
}

/**
 * A screen by name. A prompt keeps the notice that was pending when it was shown (the notice is
 * shown once: the context's own is cleared then); a closing screen keeps its one line.
 */
export type Shown =
  | { prompt: PromptName; notice?: LocalText }
  | { end: LocalText }
  /** The Buy went in: the thank-you naming who gets the SMS (from the quote). */
  | { done: true };

/** Everything the dialogue remembers between hops. JSON-serialisable: no classes, no Dates. */
export interface UssdContext {
  sessionId: string;
  aggregator: string;
  /** Epoch ms the dialogue began (see DialogueInput.startedAt); 0 in snapshots written before it existed. */
  startedAt: number;
  /** E.164 digits of the caller. */
  msisdn: string;
  /** Language tag of the dialogue (`en-BW`); the engine persists changes as the caller's preference. */
  language: string;
  serviceCode: string;
  /**
   * What the dialogue shows now, by name: the screen itself is derived from this and the rest of
   * the context when the engine renders it (`dialogueScreen`), never stored. Null before the
   * first screen.
   */
  shown: Shown | null;
  /** A line shown once above the next screen (a re-prompt reason, "language saved"). */
  notice: LocalText | null;
  /** Catalogue products in catalogue order (only those with at least one provider). */
  products: VasProduct[];
  /** The debited account: its id for the request, its currency for amounts. */
  account: { id: number; currency: string } | null;
  /** Loaded with the catalogue: an in-flight dialogue keeps the settings it started with. */
  settings: DialogueSettings;
  /** The purchase being put together (cleared on HOME). */
  purchase: PurchaseDraft;
  purchaseId: string | null;
  tokens: TokenItem[];
  resendId: string | null;
  /** The caller as a field agent; null for a subscriber (absent in snapshots before agents). */
  agent?: AgentView | null;
  /** The agent's float as last read (the float screen). */
  agentFloat?: { available: Money; held: Money } | null;
  /** The agent's last sales (the "Last sales" screen). */
  sales?: Array<{ purchaseId: string; date: string; identifier: string; total: Money; state: string }>;
}

/** What a guard or an action of the dialogue is given. */
export interface DialogueArgs {
  context: UssdContext;
  event: DialogueEvent;
}
