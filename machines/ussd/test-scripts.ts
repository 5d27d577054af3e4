/**
 * Whole dialogues that together reach every settled state of the USSD machine (used by the
 * snapshot round-trip test and the render-every-screen test).
 */
import { OPT, type DialogueServices } from '../ussd-session.machine';
import { PurchaseServiceError } from '../../src/vas/errors';
import type { DialogueEvent } from '../../src/ussd/engine/dialogue';
import { purchaseView } from '../../src/purchases/history';
import { BACK, Dialogue, ELEC_INTENT, HOME, TIMEOUT, choose, record, services, text } from './test-kit';

/** `wait: false`: the event starts an actor that will not settle by itself (a TIMEOUT follows). */
export type Step = DialogueEvent | { event: DialogueEvent; wait: false };

export interface Script {
  name: string;
  overrides?: () => Partial<DialogueServices>;
  steps: Step[];
}

const METER = '04123456789';
const HANG_METER = '09999999999';
const never = <T>() => new Promise<T>(() => undefined);
const ELEC = choose(OPT.product('ELECTRICITY'));

function refuseBy(identifierToCode: Record<string, string>): Partial<DialogueServices> {
  const { services: base } = services();
  return {
    quote: async (req) => {
      const code =
        identifierToCode[req.subscriberIdentifier] ?? identifierToCode[`amount:${req.amount.minor}`];
      if (code === 'hang') return never();
      if (code) {
        throw new PurchaseServiceError({
          type: 'validation_error',
          code,
          message: code,
          param: null,
          retryable: false,
          requestId: null,
          status: 400,
        });
      }
      return base.quote(req);
    },
  };
}

/** Version 7's services: a saved meter with a purchase in progress, and the "send the token to" question. */
function repeatBuyer(): Partial<DialogueServices> {
  const saved = { productType: 'ELECTRICITY' as const, identifier: METER, name: 'KABELO M' };
  return {
    askTokenRecipient: true,
    savedMeters: async () => [saved],
    purchasesInProgress: async (msisdn, identifier) =>
      identifier === METER
        ? [
            purchaseView(
              { ...record('p-7', ELEC_INTENT, '2026-11-21T08:00:00.000Z'), state: 'confirming' },
              msisdn,
            ),
          ]
        : [],
  };
}

export const SCRIPTS: Script[] = [
  {
    name: 'v7: a saved meter, a gift, buy again anyway',
    overrides: repeatBuyer,
    steps: [
      ELEC,
      choose(OPT.meter(METER)),
      choose(OPT.other),
      text('abc'),
      text('26771234569'),
      text('100'),
      choose(OPT.yes),
      choose(OPT.buy),
    ],
  },
  {
    name: 'v7: another meter typed, this phone, not again',
    overrides: repeatBuyer,
    steps: [ELEC, choose(OPT.otherMeter), text(METER), choose(OPT.self), text('100'), choose(OPT.no)],
  },
  {
    name: 'v7: my purchases, report a problem',
    steps: [choose(OPT.tokens), choose('purchase:p-9'), choose(OPT.report), choose(OPT.reason('other'))],
  },
  {
    name: 'v7: my meters, remove one',
    overrides: repeatBuyer,
    steps: [choose(OPT.meters), choose(OPT.saved('ELECTRICITY', METER)), choose(OPT.remove)],
  },
  { name: 'v7: help', steps: [choose(OPT.help)] },
  {
    name: 'electricity: wrong meter, wrong amount, invalid choice, buy',
    steps: [ELEC, text('1'), text(METER), text('x'), text('100'), text('9'), choose(OPT.buy)],
  },
  { name: 'electricity: cancel', steps: [ELEC, text(METER), text('50'), choose(OPT.cancel)] },
  {
    name: 'airtime: another number, invalid, back, buy',
    steps: [
      choose(OPT.product('AIRTIME')),
      text('x'),
      choose(OPT.provider('BTC')),
      text('x'),
      choose(OPT.other),
      text('123'),
      text('71234567'),
      text('20'),
      BACK,
      text('20'),
      choose(OPT.buy),
    ],
  },
  {
    name: 'airtime: my number',
    steps: [
      choose(OPT.product('AIRTIME')),
      choose(OPT.provider('MASCOM')),
      choose(OPT.self),
      text('20'),
      choose(OPT.buy),
    ],
  },
  {
    name: 'water: buy',
    steps: [choose(OPT.product('WATER')), text('0123456789'), text('10'), choose(OPT.buy)],
  },
  {
    name: 'my purchases: resend',
    steps: [choose(OPT.tokens), text('x'), choose('purchase:p-9'), choose(OPT.resendToken)],
  },
  {
    name: 'my tokens: none',
    overrides: () => ({ purchaseHistory: async () => [] }),
    steps: [choose(OPT.tokens), BACK],
  },
  {
    name: 'language: Setswana, then a purchase started and abandoned',
    steps: [choose(OPT.language), text('x'), choose(OPT.lang('tn')), ELEC, text('1'), HOME, text('x')],
  },
  { name: 'too many wrong meters', steps: [ELEC, text('1'), text('2'), text('3')] },
  {
    name: 'quote refusals: meter, amount, then provider busy',
    overrides: () =>
      refuseBy({
        '04000000001': 'meter_not_found',
        'amount:100': 'amount_below_minimum',
        [METER]: 'provider_busy',
      }),
    steps: [ELEC, text('04000000001'), text('10'), text(METER), text('1'), text('10')],
  },
  {
    name: 'quote refused for the operator',
    overrides: () => refuseBy({ [METER]: 'insufficient_balance' }),
    steps: [ELEC, text(METER), text('10')],
  },
  {
    name: 'quote timeout, retry, pending again, back',
    overrides: () => refuseBy({ [HANG_METER]: 'hang' }),
    steps: [ELEC, text(HANG_METER), { event: text('10'), wait: false }, TIMEOUT, text('x'), BACK],
  },
  {
    name: 'order timeout then retry',
    overrides: () => {
      let n = 0;
      const { services: base } = services();
      return { order: (intent, key) => (++n === 1 ? never() : base.order(intent, key)) };
    },
    steps: [
      ELEC,
      text(METER),
      text('10'),
      { event: choose(OPT.buy), wait: false },
      TIMEOUT,
      HOME,
      choose(OPT.retry),
    ],
  },
  {
    name: 'amount: 0 is asked about, an amount out of the operator range is refused, 0 0 goes back',
    overrides: () => ({ amountRanges: { ELECTRICITY: { minMinor: 1_000, maxMinor: 100_000 } } }),
    steps: [ELEC, text(METER), BACK, text('5000'), BACK, BACK, text(METER), text('50'), BACK],
  },
  {
    name: 'provider refuses for good, in its own words',
    overrides: () => ({
      quote: async () => {
        throw new PurchaseServiceError({
          type: 'provider_error',
          code: 'provider_error',
          message: 'Purchase only allowed once the debt is paid',
          param: null,
          retryable: false,
          requestId: null,
          status: 422,
        });
      },
    }),
    steps: [ELEC, text(METER), text('10')],
  },
  {
    name: 'a fixed charge eats most of the amount: the quote says so',
    overrides: () => {
      const { services: base } = services();
      return {
        quote: async (req) => ({ ...(await base.quote(req)), metadata: { charge: 'BWP 1000.00' } }),
      };
    },
    steps: [ELEC, text(METER), text('1001'), choose(OPT.cancel)],
  },
  {
    name: 'catalogue timeout then retry',
    overrides: () => {
      let n = 0;
      const { services: base } = services();
      return { products: () => (++n === 1 ? never() : base.products()) };
    },
    steps: [TIMEOUT, choose(OPT.retry)],
  },
];

/** Plays a script; with `roundTrip` the actor is restored from JSON before every event sent at a settled state. */
export async function play(script: Script, roundTrip: boolean): Promise<Dialogue> {
  const { services: svc } = services(script.overrides?.() ?? {});
  const d = new Dialogue(svc, roundTrip);
  const first = script.steps[0];
  const startsWithTimeout = first !== undefined && 'type' in first && first.type === 'TIMEOUT';
  if (startsWithTimeout) {
    const starting = d.start();
    d.sendNoWait(TIMEOUT);
    await starting;
  } else {
    await d.start();
  }
  for (const step of script.steps.slice(startsWithTimeout ? 1 : 0)) {
    if ('wait' in step) d.sendNoWait(step.event);
    else await d.send(step);
  }
  d.stop();
  return d;
}
