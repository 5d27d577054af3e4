/**
 * Test kit for the USSD dialogue machine: spec-shaped service data (inputs, not mocks of our
 * modules), a runner that plays events and waits for the `settled` tag, optionally restoring
 * the actor from a JSON round-tripped snapshot before every event (as the engine does).
 */
import { purchaseView } from '../../src/purchases/history';
import { createActor, waitFor, type Actor, type SnapshotFrom } from 'xstate';
import {
  dialogueActors,
  dialogueScreen,
  ussdMachine,
  type DialogueServices,
  type UssdMachine,
} from '../ussd-session.machine';
import type { ServiceErrorInfo } from '../../src/vas/error-info';
import { PurchaseServiceError, type ServiceErrorFields } from '../../src/vas/errors';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import {
  SETTLED_TAG,
  type DialogueEvent,
  type DialogueInput,
  type LocalText,
  type Screen,
} from '../../src/ussd/engine/dialogue';
import type { Account, PurchaseRequest, Transaction, VasProduct } from '../../src/vas/port';

export const INPUT: DialogueInput = {
  sessionId: 'sess-1',
  aggregator: 'africastalking',
  msisdn: '26772000001',
  language: 'en-BW',
  serviceCode: '*384*123#',
  startedAt: 1_790_000_000_000,
};

/** Catalogue in the shape of the sandbox's (interface section 2.7, already mapped by the client). */
export const PRODUCTS: VasProduct[] = [
  {
    productType: 'ELECTRICITY',
    displayName: 'Electricity',
    providers: [{ code: 'BPC', name: 'Botswana Power Corporation' }],
    identifier: {
      label: 'Meter number',
      minLength: 11,
      maxLength: 13,
      pattern: '^[0-9]{11,13}$',
      hint: null,
    },
  },
  {
    productType: 'AIRTIME',
    displayName: 'Airtime',
    providers: [
      { code: 'MASCOM', name: 'Mascom Wireless' },
      { code: 'ORANGE', name: 'Orange Botswana' },
      { code: 'BTC', name: 'Botswana Telecommunications Corporation' },
    ],
    identifier: {
      label: 'Mobile number',
      minLength: 11,
      maxLength: 11,
      pattern: '^2677[0-9]{7}$',
      hint: 'Mobile number, e.g. 26771234567',
    },
  },
  {
    productType: 'WATER',
    displayName: 'Water',
    providers: [{ code: 'WUC', name: 'Water Utilities Corporation' }],
    identifier: {
      label: 'Account number',
      minLength: 10,
      maxLength: 10,
      pattern: '^[0-9]{10}$',
      hint: 'Water account number: 10 digits, as printed on the WUC bill',
    },
  },
];

export const ACCOUNT: Account = {
  id: 7,
  name: 'Main',
  currency: 'BWP',
  category: 'CURRENT',
  rank: 1,
  balance: { currency: 'BWP', minor: 100_000_000 },
};

export const LANGUAGES = [
  { code: 'en', tag: 'en-BW', name: 'English' },
  { code: 'tn', tag: 'tn-BW', name: 'Setswana' },
];

/** A validate answer for `req`: BWP 5.00 charges on top, units for electricity/water. */
export function quoteFor(req: PurchaseRequest): Transaction {
  const charge = { currency: req.amount.currency, minor: 500 };
  return {
    id: 1001,
    status: 'ON_GOING',
    reference: null,
    productType: req.productType,
    providerCode: req.providerCode,
    subscriberIdentifier: req.subscriberIdentifier,
    subscriberDetails: req.productType === 'AIRTIME' ? null : 'MMOLOKI MOSARWA',
    total: { currency: req.amount.currency, minor: req.amount.minor + charge.minor },
    net: req.amount,
    charge,
    commission: null,
    entry: null,
    units: req.productType === 'ELECTRICITY' ? '45.2 kWh' : req.productType === 'WATER' ? '1000 L' : null,
    tokens: [],
    rawToken: null,
    providerTransactionId: null,
    metadata: {},
    requestId: 'req-1',
  };
}

export function record(id: string, intent: PurchaseIntent, createdAt: string): PurchaseRecord {
  return {
    id,
    idempotencyKey: `k-${id}`,
    externalReference: `ext-${id}`,
    intent,
    state: 'succeeded',
    version: 3,
    createdAt,
    updatedAt: createdAt,
    confirmSentAt: createdAt,
    reconcileAttempts: 0,
    result: null,
    failure: null,
    notifications: [],
    confirmAttempts: 1,
    notFoundCount: 0,
    reconcileDeadlineAt: null,
    nextAttemptAt: null,
    lastError: null,
    settledAt: createdAt,
    notifiedAt: createdAt,
  };
}

export const ELEC_INTENT: PurchaseIntent = {
  productType: 'ELECTRICITY',
  providerCode: 'BPC',
  subscriberIdentifier: '04123456789',
  amount: { currency: 'BWP', minor: 10_000 },
  debitedAccountId: 7,
  beneficiaryMsisdn: INPUT.msisdn,
  requesterMsisdn: INPUT.msisdn,
  language: 'en-BW',
  channel: 'USSD',
  subscriberDetails: 'MMOLOKI MOSARWA',
};

/** Recorded calls, for assertions on what the machine asked of the world. */
export interface Calls {
  products: number;
  quote: PurchaseRequest[];
  order: Array<{ intent: PurchaseIntent; key: string }>;
  recent: string[];
  resend: Array<{ id: string; key: string }>;
}

/** The service's refusal `code` (a 400 validation error unless `fields` say otherwise). */
export function serviceError(code: string, fields: Partial<ServiceErrorFields> = {}): PurchaseServiceError {
  return new PurchaseServiceError({
    type: 'validation_error',
    code,
    message: `refused: ${code}`,
    param: null,
    retryable: false,
    requestId: 'r-1',
    status: 400,
    ...fields,
  });
}

/** Services over fixed data; `overrides` replace single services for a scenario. */
export function services(overrides: Partial<DialogueServices> = {}): {
  services: DialogueServices;
  calls: Calls;
} {
  const calls: Calls = { products: 0, quote: [], order: [], recent: [], resend: [] };
  const base: DialogueServices = {
    products: async () => {
      calls.products++;
      return PRODUCTS;
    },
    debitAccount: async () => ACCOUNT,
    quote: async (req) => {
      calls.quote.push(req);
      return quoteFor(req);
    },
    order: async (intent, key) => {
      calls.order.push({ intent, key });
      return { ...record('p-1', intent, '2026-11-20T10:00:00.000Z'), state: 'created' };
    },
    purchaseHistory: async (msisdn) => {
      calls.recent.push(msisdn);
      return [
        record('p-9', ELEC_INTENT, '2026-11-21T08:30:00.000Z'),
        record(
          'p-8',
          { ...ELEC_INTENT, amount: { currency: 'BWP', minor: 2550 } },
          '2026-11-19T17:00:00.000Z',
        ),
      ].map((r) => purchaseView(r, msisdn));
    },
    resend: async (id, key) => {
      calls.resend.push({ id, key });
    },
    languages: () => LANGUAGES,
    defaultRegion: 'BW',
    maxIdentifierTries: 3,
    // The token goes to the caller; the recipient question has its own scripts.
    askTokenRecipient: false,
    savedMeters: async () => [],
    removeMeter: async () => [],
    purchasesInProgress: async () => [],
    openCase: async () => ({ caseId: '1001' }),
  };
  const wrapped = { ...base, ...overrides };
  // Overrides still record their calls.
  if (overrides.quote) {
    const q = overrides.quote;
    wrapped.quote = (req) => {
      calls.quote.push(req);
      return q(req);
    };
  }
  if (overrides.order) {
    const o = overrides.order;
    wrapped.order = (intent, key) => {
      calls.order.push({ intent, key });
      return o(intent, key);
    };
  }
  return { services: wrapped, calls };
}

export type Snap = SnapshotFrom<UssdMachine>;

/** Waits until the machine waits for the subscriber (or ended). */
export async function settled(actor: Actor<UssdMachine>): Promise<Snap> {
  return waitFor(actor, (s) => s.hasTag(SETTLED_TAG) || s.status === 'done');
}

/** Only the state the machine is in (no parallel states). */
export const stateOf = (s: Snap): string => String(s.value);

export const keyOf = (t: LocalText | undefined): string | undefined =>
  t === undefined ? undefined : 'key' in t ? t.key : `literal:${t.literal}`;

/** A dialogue under test: one actor, or (roundTrip) a fresh actor restored from JSON before each event. */
export class Dialogue {
  readonly machine: UssdMachine;
  private actor: Actor<UssdMachine>;
  snap!: Snap;
  /** Every settled snapshot, in order. */
  readonly seen: Snap[] = [];
  /** How many times the actor was rebuilt from a persisted snapshot. */
  restores = 0;
  /** Operator problems the actors reported (the gateway logs them loudly). */
  readonly operatorProblems: Array<{ call: string; error: ServiceErrorInfo }> = [];

  constructor(
    svc: DialogueServices,
    private readonly roundTrip = false,
    private readonly input: DialogueInput = INPUT,
  ) {
    // The gateway's createUssdMachine does the same, reporting to the log instead.
    this.machine = ussdMachine.provide({
      actors: dialogueActors(svc, (call, error) => this.operatorProblems.push({ call, error })),
    });
    this.actor = createActor(this.machine, { input });
  }

  async start(): Promise<Snap> {
    this.actor.start();
    return this.settle();
  }

  async send(event: DialogueEvent): Promise<Snap> {
    const now = this.actor.getSnapshot();
    // The engine persists only settled snapshots; a TIMEOUT reaches the live actor.
    if (this.roundTrip && now.hasTag(SETTLED_TAG) && now.status === 'active') this.restore();
    this.actor.send(event);
    return this.settle();
  }

  /** Sends without waiting (for TIMEOUT tests, where the machine will not settle by itself). */
  sendNoWait(event: DialogueEvent): void {
    this.actor.send(event);
  }

  /** The engine's restore: persisted snapshot → JSON → a new actor. */
  restore(): void {
    this.restores++;
    const persisted = JSON.parse(JSON.stringify(this.actor.getPersistedSnapshot()));
    this.actor.stop();
    this.actor = createActor(this.machine, { snapshot: persisted, input: this.input });
    this.actor.start();
  }

  current(): Snap {
    return this.actor.getSnapshot();
  }

  async settle(): Promise<Snap> {
    this.snap = await settled(this.actor);
    this.seen.push(this.snap);
    return this.snap;
  }

  get state(): string {
    return stateOf(this.snap);
  }

  /** The screen the dialogue shows now, derived as the engine derives it. */
  get screen(): Screen {
    const screen = dialogueScreen(this.snap.context);
    if (!screen) throw new Error(`no screen shown yet (state ${this.state})`);
    return screen;
  }

  /** Option ids of the current screen. */
  get options(): string[] {
    return (this.screen.options ?? []).map((o) => o.id);
  }

  /** Keys (or `literal:` text) of the body lines. */
  get body(): Array<string | undefined> {
    return this.screen.body.map(keyOf);
  }

  stop(): void {
    this.actor.stop();
  }
}

export const choose = (optionId: string): DialogueEvent => ({ type: 'CHOOSE', optionId });
export const text = (t: string): DialogueEvent => ({ type: 'TEXT', text: t });
export const BACK: DialogueEvent = { type: 'BACK' };
export const HOME: DialogueEvent = { type: 'HOME' };
export const TIMEOUT: DialogueEvent = { type: 'TIMEOUT' };

/** A promise the test resolves or rejects later (for actors still running at TIMEOUT). */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
