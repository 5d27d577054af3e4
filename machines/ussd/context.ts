import type { DialogueEvent, LocalText } from '../../src/ussd/engine/dialogue';
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
  /** An assistant selling from its outlet's float (it cannot top the float up). */
  outlet?: boolean;
  /** A dealer: it has retailers (the agent menu offers "My retailers" and "Transfer float"). */
  dealer?: boolean;
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

/**
 * One "My purchases" entry, reduced to what the screens show and what resend and a report need.
 */
export interface TokenItem {
  purchaseId: string;
  /** Masked subscriber identifier (meter or phone number); the meter as typed. */
  identifier: string;
  amount: Money;
  /** `YYYY-MM-DD` of the purchase, in the operator's time zone. */
  date: string;
  /** delivered (token), in progress (reference, since), not completed (why). */
  status?: 'delivered' | 'in_progress' | 'not_completed';
  reference?: string;
  /** in progress: `HH:MM` (today) or `YYYY-MM-DD HH:MM`, in the operator's time zone. */
  since?: string;
  /** not completed: the reason's code (`reason.<code>`), or `manual_check` in progress. */
  why?: string | null;
  /** delivered: the tokens to enter, in order. */
  tokens?: string[];
}

/** A saved meter or account ("1 01234567890 KABELO M"), for the product `productType`. */
export interface SavedMeterItem {
  productType: ProductType;
  identifier: string;
  name: string | null;
}

/** Saved meters as the context keeps them: by product, newest first, each `[identifier, name]`. */
export type SavedMeters = Partial<Record<ProductType, Array<[identifier: string, name: string | null]>>>;

/** A purchase of the same identifier from this number still without an outcome ("Buy again anyway?"). */
export interface InProgressItem {
  amount: Money;
  reference: string;
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
  /** the operator's notice by language code (`en`, `tn`) when the dialogue started. */
  operatorNotice?: Record<string, string>;
  /** customer care's number and hours (`CARE_PHONE`/`CARE_HOURS`) for Help; null when unset. */
  care?: { phone: string; hours: string | null } | null;
  /** electricity and water ask who gets the token (`USSD_ASK_TOKEN_RECIPIENT`). */
  askTokenRecipient?: boolean;
}

/** Which invocation a "please try again" screen re-runs. */
export type StallTarget =
  'catalogue' | 'quote' | 'order' | 'tokens' | 'resend' | 'meters' | 'inProgress' | 'removeMeter' | 'report';

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
  /** A one-dial shortcut not applied yet (`1*01234567890*100`): applied once the menu is known. */
  shortcut?: string | null;
  /** "Another meter" chosen: the identifier screen asks for one typed, the saved ones not offered. */
  typedMeter?: boolean;
  /** Electricity or water bought for another number: who gets the token ("Another number"). */
  tokenTo?: 'self' | 'other' | null;
  beneficiary?: string | null;
  /** The purchases of this identifier from this number still in progress ("Buy again anyway?"). */
  inProgress?: InProgressItem[];
  /** "Report a problem": the reason chosen; the case opened (its number). */
  report?: string | null;
  caseId?: string | null;
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
  /**
   * the caller's saved meters, every metered product's (electricity, water), read once when
   * the dialogue starts (ussd/meters.ts): the identifier screen offers the product's, "My meters"
   * lists them all, a removal replaces them with the service's answer. Let go once a quote is
   * shown (the largest record); absent for an agent (its customers' meters are not its own) and
   * after a failed read: the identifier screen and "My meters" read them then.
   */
  meters?: SavedMeters;
  /** The agent's float as last read (the float screen), with the commission earned today and this month. */
  agentFloat?: { available: Money; held: Money; commission?: { today: Money; month: Money } | null } | null;
  /** A dealer's network screens: its retailers as read, the transfer or change being put together. */
  dealer?: DealerDraft | null;
  /** The amount of the float top-up being asked (Top up float). */
  topUpMinor?: number | null;
  /** The agent's last sales (the "Last sales" screen). */
  sales?: Array<{ purchaseId: string; date: string; identifier: string; total: Money; state: string }>;
}

/** One of a dealer's retailers as its screens show it (float null: funded by an account). */
export interface RetailerItem {
  msisdn: string;
  name: string;
  float: Money | null;
  todayCount: number;
  todayValue: Money;
  status: 'active' | 'locked' | 'disabled';
  /** Disabled by its dealer (the dealer may enable it again), or by someone else (it may not). */
  byDealer?: boolean;
}

/** A dealer's network screens (one field of the context, like `purchase`). */
export interface DealerDraft {
  /** Where the retailers' list leads: a transfer's receiver, or the list with its floats; or Add retailer. */
  mode: 'transfer' | 'list' | 'add';
  retailers: RetailerItem[];
  /** The retailer chosen (E.164 digits). */
  to?: string | null;
  /** A transfer's amount (minor units). */
  amountMinor?: number | null;
  /** Add retailer: the name typed (the number is `to`). */
  name?: string | null;
  /**
   * Transfers started in this dialogue (each "Transfer float" chosen): part of a transfer's request
   * key, so a new transfer of the same amount to the same retailer is not taken for a retry.
   */
  transfers?: number;
  /**
   * The Send (or Add) of this draft ran out of time, so it may have been applied: Cancel then says
   * so instead of "Nothing was sent". A new draft starts without it.
   */
  timedOut?: boolean;
}

/** What a guard or an action of the dialogue is given. */
export interface DialogueArgs {
  context: UssdContext;
  event: DialogueEvent;
}
