import type { LocalText, Screen } from '../../src/session/dialogue';
import type { Money } from '../../src/vas/money';
import type { ProductType, PurchaseRequest, VasProduct } from '../../src/vas/port';

/** The quote as shown and as bought: plain JSON (money in minor units). */
export interface QuoteView {
  /** The validated request; the purchase intent is built from it, unchanged. */
  request: PurchaseRequest;
  subscriberDetails: string | null;
  units: string | null;
  amount: Money;
  charge: Money;
  total: Money;
}

/** One "My tokens" entry, reduced to what the screen shows and what resend needs. */
export interface TokenItem {
  purchaseId: string;
  /** Masked subscriber identifier (meter or phone number). */
  identifier: string;
  amount: Money;
  /** `YYYY-MM-DD` of the purchase. */
  date: string;
}

/** A service error reduced to plain data (snapshots are JSON). */
export interface DialogueError {
  code: string;
  message: string;
  param: string | null;
  /** True for the operator's own problems (auth, balance, merchant credit, unexpected): log loudly. */
  operatorProblem: boolean;
}

/** Which invocation a "please try again" screen re-runs. */
export type StallTarget = 'catalogue' | 'quote' | 'order' | 'tokens' | 'resend';

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
  /** What to show now (the engine renders it). */
  screen: Screen;
  /** A line shown once above the next screen (a re-prompt reason, "language saved"). */
  notice: LocalText | null;
  /** Catalogue products in catalogue order (only those with at least one provider). */
  products: VasProduct[];
  /** The debited account: its id for the request, its currency for amounts. */
  account: { id: number; currency: string } | null;
  productType: ProductType | null;
  providerCode: string | null;
  /** Airtime only: for the caller's own number or another one. */
  airtimeFor: 'self' | 'other' | null;
  /** Subscriber identifier as sent to the service (airtime: E.164 digits). */
  identifier: string | null;
  identifierTries: number;
  amountMinor: number | null;
  amountTries: number;
  quote: QuoteView | null;
  purchaseId: string | null;
  tokens: TokenItem[];
  resendId: string | null;
  stalled: StallTarget | null;
  lastError: DialogueError | null;
}
