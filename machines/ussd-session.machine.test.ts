import { createActor } from 'xstate';
import { until } from '../test/support/wait';
import { createUssdMachine, OPT, type DialogueServices } from './ussd-session.machine';
import { routeQuoteError } from '../src/sales/quote';
import { errorInfo } from '../src/vas/error-info';
import { PurchaseServiceError, RateLimitError, TransportError } from '../src/vas/errors';
import type { PurchaseRequest, Transaction } from '../src/vas/port';
import {
  BACK,
  Dialogue,
  ELEC_INTENT,
  HOME,
  INPUT,
  PRODUCTS,
  TIMEOUT,
  choose,
  deferred,
  quoteFor,
  keyOf,
  serviceError,
  services,
  settled,
  text,
  type Calls,
} from './ussd/test-kit';

const METER = '04123456789';

async function dialogue(
  overrides: Partial<DialogueServices> = {},
  roundTrip = false,
): Promise<{ d: Dialogue; calls: Calls }> {
  const { services: svc, calls } = services(overrides);
  const d = new Dialogue(svc, roundTrip);
  await d.start();
  return { d, calls };
}

/** Menu → Electricity → meter → amount: at the amount prompt. */
async function toAmount(d: Dialogue, meter = METER): Promise<void> {
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(meter));
}

describe('main menu', () => {
  it('lists the catalogue in order, then My tokens and Language, with no back/home', async () => {
    const { d, calls } = await dialogue();
    expect(d.state).toBe('menu');
    expect(d.options).toEqual([
      'product:ELECTRICITY',
      'product:AIRTIME',
      'product:WATER',
      OPT.tokens,
      OPT.meters,
      OPT.help,
      OPT.language,
    ]);
    // The locale's product names, never the catalogue's English display names.
    expect(d.screen.options?.[0].label).toEqual({ key: 'product.ELECTRICITY' });
    expect(d.body).toEqual(['menu.title']);
    expect(d.screen.back).toBeFalsy();
    expect(calls.products).toBe(1);
  });

  it.each([
    ['an unknown option', choose('product:GAS')],
    ['free text', text('7')],
  ])('redraws with error.invalidChoice first on %s, once', async (_label, event) => {
    const { d } = await dialogue();
    await d.send(event);
    expect(d.state).toBe('menu');
    expect(d.body).toEqual(['error.invalidChoice', 'menu.title']);
    await d.send(BACK);
    expect(d.body).toEqual(['menu.title']);
  });

  it('leaves out products with no provider', async () => {
    const { d } = await dialogue({
      products: async () => [{ ...PRODUCTS[0], providers: [] }, PRODUCTS[2]],
    });
    expect(d.options).toEqual(['product:WATER', OPT.tokens, OPT.meters, OPT.help, OPT.language]);
  });

  it('starts every dialogue on one frozen copy of the catalogue, a new copy when the catalogue changes', async () => {
    let catalogue = PRODUCTS.map((p) => ({ ...p }));
    const { services: svc } = services({ products: async () => catalogue });
    const machine = createUssdMachine(svc);
    const startOne = async () => {
      const actor = createActor(machine, { input: INPUT }).start();
      const snap = await settled(actor);
      actor.stop();
      return snap.context;
    };
    const [first, second] = [await startOne(), await startOne()];
    expect(second.products).toBe(first.products);
    expect(second.settings).toBe(first.settings);
    expect(Object.isFrozen(first.products[0].providers)).toBe(true);
    expect(Object.isFrozen(first.settings.languages)).toBe(true);
    // A copy, never the service's own objects.
    expect(first.products[0]).not.toBe(catalogue[0]);
    expect(Object.isFrozen(catalogue[0])).toBe(false);

    catalogue = [{ ...PRODUCTS[0], displayName: 'Prepaid power' }];
    const third = await startOne();
    expect(third.products).not.toBe(first.products);
    expect(third.products.map((p) => p.displayName)).toEqual(['Prepaid power']);
  });

  it('ends with service unavailable when the catalogue or account cannot be loaded', async () => {
    const fails = [
      { products: async () => Promise.reject(serviceError('invalid_credentials', { status: 401 })) },
      { debitAccount: async () => Promise.reject(new Error('no CURRENT account')) },
    ];
    for (const overrides of fails) {
      const { d } = await dialogue(overrides);
      expect(d.state).toBe('unavailable');
      expect(d.screen).toEqual({ body: [{ key: 'error.serviceUnavailable' }], final: true });
      // The subscriber sees "unavailable"; the operator is told why.
      expect(d.operatorProblems.map((p) => p.call)).toEqual(['loadCatalogue']);
    }
  });
});

describe('electricity purchase', () => {
  it('skips the single provider, prompts with the localised label and a derived hint, quotes and buys', async () => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.product('ELECTRICITY')));
    expect(d.state).toBe('identifier');
    expect(d.screen.body).toEqual([
      {
        key: 'identifier.prompt',
        params: {
          label: { key: 'identifier.label.ELECTRICITY' },
          hint: { key: 'identifier.hintDerived', params: { min: 11, max: 13 } },
        },
      },
    ]);
    expect(d.screen.about).toEqual({ key: 'product.ELECTRICITY' });
    expect(d.screen).toMatchObject({ expectsText: true, back: true, home: true });

    await d.send(text(' 0412 3456 789 '));
    expect(d.state).toBe('amount');
    expect(d.snap.context.purchase.identifier).toBe(METER);
    expect(d.screen.body).toEqual([{ key: 'amount.prompt', params: { currency: 'BWP' } }]);

    await d.send(text('100.5'));
    expect(d.state).toBe('quote');
    expect(calls.quote).toEqual<PurchaseRequest[]>([
      {
        sourceChannel: 'USSD',
        language: 'en-BW',
        productType: 'ELECTRICITY',
        providerCode: 'BPC',
        debitedAccountId: 7,
        beneficiaryPhoneNumber: INPUT.msisdn,
        subscriberIdentifier: METER,
        amount: { currency: 'BWP', minor: 10_050 },
      },
    ]);
    // The name may be cut to fit; the identifier, amount and total never are.
    expect(d.screen.body).toEqual([{ literal: 'MMOLOKI MOSARWA' }]);
    expect(d.screen.keep).toEqual([
      { literal: METER },
      { key: 'quote.line.units', params: { units: '45.2 kWh' } },
      { key: 'quote.line.amount', params: { amount: 'BWP 100.50' } },
      { key: 'quote.line.charges', params: { charges: 'BWP 5.00' } },
      { key: 'quote.line.total', params: { total: 'BWP 105.50' } },
    ]);
    expect(d.screen.about).toEqual({
      key: 'resume.about',
      params: { product: { key: 'product.ELECTRICITY' }, identifier: METER },
    });
    expect(d.options).toEqual([OPT.buy, OPT.cancel]);

    await d.send(choose(OPT.buy));
    expect(d.state).toBe('done');
    expect(d.screen).toEqual({
      body: [{ key: 'confirm.done', params: { msisdn: '267****0001' } }],
      final: true,
    });
    expect(calls.order).toEqual([
      {
        key: 'africastalking:sess-1:1790000000000',
        intent: { ...ELEC_INTENT, subscriberIdentifier: METER, amount: { currency: 'BWP', minor: 10_050 } },
      },
    ]);
    expect(d.snap.context.purchaseId).toBe('p-1');
    expect(d.snap.status).toBe('done');
  });

  it("uses the admin hint (water) in the catalogue's language, the localised derived hint in others", async () => {
    const { d } = await dialogue();
    await d.send(choose(OPT.product('WATER')));
    expect(d.screen.body).toEqual([
      {
        key: 'identifier.prompt',
        params: {
          label: { key: 'identifier.label.WATER' },
          hint: { literal: 'Water account number: 10 digits, as printed on the WUC bill' },
        },
      },
    ]);
    const { services: svc } = services();
    const tn = new Dialogue(svc, false, { ...INPUT, language: 'tn-BW' });
    await tn.start();
    await tn.send(choose(OPT.product('WATER')));
    expect(tn.screen.body).toEqual([
      {
        key: 'identifier.prompt',
        params: {
          label: { key: 'identifier.label.WATER' },
          hint: { key: 'identifier.hintExact', params: { min: 10 } },
        },
      },
    ]);
  });

  it('cancel ends without ordering', async () => {
    const { d, calls } = await dialogue();
    await toAmount(d);
    await d.send(text('50'));
    await d.send(choose(OPT.cancel));
    expect(d.state).toBe('cancelled');
    expect(d.screen).toEqual({ body: [{ key: 'cancelled' }], final: true });
    expect(calls.order).toEqual([]);
  });

  it('redraws the quote on an invalid choice', async () => {
    const { d } = await dialogue();
    await toAmount(d);
    await d.send(text('50'));
    await d.send(text('3'));
    expect(d.state).toBe('quote');
    expect(d.body[0]).toBe('error.invalidChoice');
  });

  it.each([
    ['no name', { subscriberDetails: null }, [], ['literal:' + METER, 'quote.line.units']],
    ['no units', { units: null }, ['literal:MMOLOKI MOSARWA'], ['literal:' + METER, 'quote.line.amount']],
    ['neither', { units: null, subscriberDetails: null }, [], ['literal:' + METER, 'quote.line.amount']],
  ])('leaves out what the quote lacks (%s)', async (_label, patch, body, keepStart) => {
    const { services: base } = services();
    const { d } = await dialogue({
      quote: async (req: PurchaseRequest): Promise<Transaction> => ({ ...(await base.quote(req)), ...patch }),
    });
    await toAmount(d);
    await d.send(text('50'));
    expect(d.body).toEqual(body);
    expect((d.screen.keep ?? []).map(keyOf).slice(0, 2)).toEqual(keepStart);
    expect((d.screen.keep ?? []).map(keyOf).slice(-1)).toEqual(['quote.line.total']);
  });

  it('says so when the provider deducts most of the amount (a fixed charge or a debt)', async () => {
    const { services: base } = services();
    const withCharge =
      (charge: string) =>
      async (req: PurchaseRequest): Promise<Transaction> => ({
        ...(await base.quote(req)),
        metadata: { charge },
      });
    const { d } = await dialogue({ quote: withCharge('BWP 1000.00') });
    await toAmount(d);
    await d.send(text('1001'));
    expect(d.screen.keep?.at(-1)).toEqual({ key: 'quote.deducted', params: { deducted: 'BWP 1000.00' } });
    // A 5% tariff charge is no news worth a line.
    const small = await dialogue({ quote: withCharge('BWP 5.00') });
    await toAmount(small.d);
    await small.d.send(text('100'));
    expect((small.d.screen.keep ?? []).map(keyOf)).not.toContain('quote.deducted');
  });
});

describe('identifier checks before any call', () => {
  it.each([
    ['0412345', { key: 'identifier.invalid.tooShort', params: { min: 11 } }],
    ['04123456789012', { key: 'identifier.invalid.tooLong', params: { max: 13 } }],
    ['0412345678A', { key: 'identifier.invalid.pattern' }],
    ['', { key: 'identifier.invalid.tooShort', params: { min: 11 } }],
  ])('%j re-prompts with the reason', async (value, reason) => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.product('ELECTRICITY')));
    await d.send(text(value));
    expect(d.state).toBe('identifier');
    expect(d.screen.body[0]).toEqual(reason);
    expect(d.body.slice(1)).toEqual(['identifier.prompt']);
    expect(calls.quote).toEqual([]);
  });

  it('ends politely after 3 wrong tries', async () => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.product('ELECTRICITY')));
    await d.send(text('1'));
    await d.send(text('2'));
    expect(d.state).toBe('identifier');
    await d.send(text('3'));
    expect(d.state).toBe('tooManyTries');
    expect(d.screen).toEqual({ body: [{ key: 'error.tooManyTries' }], final: true });
    expect(calls.quote).toEqual([]);
  });

  it('a right value after two wrong ones goes on', async () => {
    const { d } = await dialogue();
    await d.send(choose(OPT.product('ELECTRICITY')));
    await d.send(text('1'));
    await d.send(text('2'));
    await d.send(text(METER));
    expect(d.state).toBe('amount');
  });
});

describe('amount checks', () => {
  it.each([
    ['abc', 'amount.invalid.notNumber'],
    ['-5', 'amount.invalid.notNumber'],
    ['1.234', 'amount.invalid.tooManyDecimals'],
    ['0', 'amount.invalid.notPositive'],
    ['0.00', 'amount.invalid.notPositive'],
  ])('%j re-prompts with %s', async (value, key) => {
    const { d, calls } = await dialogue();
    await toAmount(d);
    await d.send(text(value));
    expect(d.state).toBe('amount');
    expect(d.body).toEqual([key, 'amount.prompt']);
    expect(calls.quote).toEqual([]);
  });

  it('ends after 3 wrong amounts', async () => {
    const { d } = await dialogue();
    await toAmount(d);
    await d.send(text('x'));
    await d.send(text('y'));
    await d.send(text('z'));
    expect(d.state).toBe('tooManyTries');
  });
});

describe('quote errors lead somewhere useful', () => {
  async function quoteFailing(error: unknown, product: 'ELECTRICITY' | 'AIRTIME' = 'ELECTRICITY') {
    const r = await dialogue({ quote: async () => Promise.reject(error) });
    if (product === 'ELECTRICITY') await toAmount(r.d);
    else {
      await r.d.send(choose(OPT.product('AIRTIME')));
      await r.d.send(choose(OPT.provider('MASCOM')));
      await r.d.send(choose(OPT.self));
    }
    await r.d.send(text('100'));
    return r;
  }

  it.each([
    ['invalid_meter_number', 400],
    ['meter_not_found', 404],
    ['meter_not_allowed', 403],
    ['meter_blocked', 422],
    ['meter_unsupported', 400],
  ])('%s → back to the identifier with the reason', async (code, status) => {
    const { d } = await quoteFailing(serviceError(code, { status }));
    expect(d.state).toBe('identifier');
    expect(d.body).toEqual([`reason.${code}`, 'identifier.prompt']);
    expect(d.snap.context.purchase.lastError).toMatchObject({ code });
    expect(d.operatorProblems).toEqual([]);
  });

  it('invalid_argument on subscriber_identifier → back to the identifier', async () => {
    const { d } = await quoteFailing(serviceError('invalid_argument', { param: 'subscriber_identifier' }));
    expect(d.state).toBe('identifier');
    expect(d.body[0]).toBe('identifier.invalid.pattern');
  });

  it('invalid_msisdn for airtime → back to the phone number prompt', async () => {
    const { d } = await quoteFailing(
      serviceError('invalid_msisdn', { param: 'beneficiary_phone_number' }),
      'AIRTIME',
    );
    expect(d.state).toBe('phone');
    expect(d.body).toEqual(['reason.invalid_msisdn', 'airtime.otherNumber.prompt']);
  });

  it.each(['amount_below_minimum', 'amount_above_maximum', 'amount_below_charges', 'invalid_amount'])(
    '%s → back to the amount with the reason',
    async (code) => {
      const { d } = await quoteFailing(serviceError(code, { param: 'amount' }));
      expect(d.state).toBe('amount');
      expect(d.body).toEqual([`reason.${code}`, 'amount.prompt']);
    },
  );

  it('identifier refusals by the service count as tries', async () => {
    const { d, calls } = await dialogue({
      quote: async () => Promise.reject(serviceError('meter_not_found', { status: 404 })),
    });
    await toAmount(d);
    await d.send(text('10'));
    await d.send(text(METER));
    await d.send(text('10'));
    await d.send(text(METER));
    await d.send(text('10'));
    expect(d.state).toBe('tooManyTries');
    expect(calls.quote).toHaveLength(3);
  });

  it('amount refusals by the service count as tries', async () => {
    const { d } = await dialogue({
      quote: async () => Promise.reject(serviceError('amount_below_minimum')),
    });
    await toAmount(d);
    await d.send(text('1'));
    await d.send(text('2'));
    await d.send(text('3'));
    expect(d.state).toBe('tooManyTries');
  });

  const rateLimit = new RateLimitError({
    type: 'rate_limit_error',
    code: 'rate_limited',
    message: 'slow down',
    param: null,
    retryable: true,
    requestId: null,
    status: 429,
  });
  /** A service error by its code, type and status, and the key of the end it leads to. */
  const ending = (
    code: string,
    type: string,
    status: number,
    key: string,
    retryable = false,
  ): [string, unknown, string] => [
    retryable ? `${code} (retryable)` : code,
    serviceError(code, { type, status, retryable }),
    key,
  ];
  it.each<[string, unknown, string]>([
    ending('provider_timeout', 'provider_timeout', 504, 'error.tryAgainLater'),
    ending('provider_unavailable', 'provider_unavailable', 502, 'error.tryAgainLater'),
    ending('provider_busy', 'provider_error', 422, 'reason.provider_busy'),
    ending('provider_error', 'provider_error', 422, 'reason.provider_error', true),
    ending('upstream_error', 'provider_error', 422, 'error.tryAgainLater'),
    ending('transaction_pending', 'conflict_error', 409, 'reason.transaction_pending'),
    ['rate limit', rateLimit, 'error.tryAgainLater'],
    ['a transport error', new TransportError('unknown', 'socket hang up', 'r-1'), 'error.tryAgainLater'],
    ['a connection refused', new TransportError('not_sent', 'ECONNREFUSED', 'r-1'), 'error.tryAgainLater'],
  ])('%s → a "try again later" end', async (_label, error, key) => {
    const { d } = await quoteFailing(error);
    expect(d.state).toBe('tryLater');
    expect(d.screen).toEqual({ body: [{ key }], final: true });
    expect(d.operatorProblems).toEqual([]);
  });

  it("a provider's refusal for good (a debt to pay first) ends with the provider's own words", async () => {
    const { d } = await quoteFailing(
      serviceError('provider_error', {
        type: 'provider_error',
        status: 422,
        message: 'Purchase only allowed once the debt is paid',
      }),
    );
    expect(d.state).toBe('refused');
    expect(d.screen).toEqual({
      body: [
        {
          key: 'reason.provider_refused',
          params: { message: 'Purchase only allowed once the debt is paid' },
        },
      ],
      final: true,
    });
    expect(d.operatorProblems).toEqual([]);
  });

  it.each([
    [
      'Minimum vend: the amount must be greater than BWP 1000.00',
      'reason.amount_below_minimum.moreThan',
      'BWP 1000.00',
    ],
    ['Minimum purchase is BWP 20', 'reason.amount_below_minimum.atLeast', 'BWP 20.00'],
  ])('a below-minimum refusal names the minimum the provider gave (%s)', async (message, key, limit) => {
    const { d } = await quoteFailing(serviceError('amount_below_minimum', { param: 'amount', message }));
    expect(d.state).toBe('amount');
    expect(d.screen.body[0]).toEqual({ key, params: { limit } });
  });

  it('an amount outside the operator range is refused on the amount screen, naming the limit, with no quote', async () => {
    const { d, calls } = await dialogue({
      amountRanges: { ELECTRICITY: { minMinor: 1_000, maxMinor: 500_000 } },
    });
    await toAmount(d);
    expect(d.screen.body).toEqual([
      { key: 'amount.promptRange', params: { min: 'BWP 10.00', max: 'BWP 5000.00' } },
    ]);
    await d.send(text('999999999999'));
    expect(d.state).toBe('amount');
    expect(d.screen.body[0]).toEqual({ key: 'spend.aboveMaximum', params: { max: 'BWP 5000.00' } });
    await d.send(text('5'));
    expect(d.screen.body[0]).toEqual({ key: 'spend.belowMinimum', params: { min: 'BWP 10.00' } });
    expect(calls.quote).toEqual([]);
    await d.send(text('10'));
    expect(d.state).toBe('quote');
  });

  it.each<[string, unknown]>([
    [
      'insufficient_balance',
      serviceError('insufficient_balance', { type: 'insufficient_funds_error', status: 402 }),
    ],
    [
      'merchant_credit_exhausted',
      serviceError('merchant_credit_exhausted', { type: 'provider_unavailable', status: 502 }),
    ],
    ['missing_permission', serviceError('missing_permission', { type: 'permission_error', status: 403 })],
    [
      'invalid_credentials',
      serviceError('invalid_credentials', { type: 'authentication_error', status: 401 }),
    ],
    ['forbidden', serviceError('forbidden', { type: 'permission_error', status: 403 })],
    ['internal_error', serviceError('internal_error', { type: 'internal_error', status: 500 })],
    ['something unexpected', new TypeError('x is undefined')],
  ])('%s → a neutral "service unavailable" end, flagged as the operator\'s problem', async (code, error) => {
    const { d } = await quoteFailing(error);
    expect(d.state).toBe('unavailable');
    expect(d.screen).toEqual({ body: [{ key: 'error.serviceUnavailable' }], final: true });
    expect(d.operatorProblems.map((p) => p.call)).toEqual(['quote']);
    if (error instanceof PurchaseServiceError) {
      expect(d.snap.context.purchase.lastError?.code).toBe(code);
      expect(d.operatorProblems[0]?.error.code).toBe(code);
    }
    // Plain data only: the snapshot is JSON.
    expect(JSON.parse(JSON.stringify(d.snap.context.purchase.lastError))).toEqual(
      d.snap.context.purchase.lastError,
    );
  });

  it("invalid_msisdn on a meter purchase is not the subscriber's to fix", () => {
    expect(routeQuoteError({ code: 'invalid_msisdn', type: 'validation_error', param: null }, false)).toBe(
      'unavailable',
    );
    expect(errorInfo('boom')).toMatchObject({ code: 'unexpected', message: 'boom' });
  });
});

describe('airtime', () => {
  async function toWhoFor(d: Dialogue) {
    await d.send(choose(OPT.product('AIRTIME')));
    expect(d.state).toBe('provider');
    expect(d.options).toEqual(['provider:MASCOM', 'provider:ORANGE', 'provider:BTC']);
    expect(d.screen.body).toEqual([
      { key: 'provider.prompt', params: { product: { key: 'product.AIRTIME' } } },
    ]);
    await d.send(choose(OPT.provider('ORANGE')));
    expect(d.state).toBe('airtimeFor');
    expect(d.options).toEqual([OPT.self, OPT.other]);
  }

  it('my number: the caller is identifier and beneficiary', async () => {
    const { d, calls } = await dialogue();
    await toWhoFor(d);
    await d.send(choose(OPT.self));
    expect(d.state).toBe('amount');
    await d.send(text('20'));
    expect(calls.quote[0]).toMatchObject({
      productType: 'AIRTIME',
      providerCode: 'ORANGE',
      subscriberIdentifier: INPUT.msisdn,
      beneficiaryPhoneNumber: INPUT.msisdn,
    });
    expect(d.screen.keep?.[0]).toEqual({
      key: 'quote.line.airtimeFor',
      params: { identifier: INPUT.msisdn },
    });
    await d.send(choose(OPT.buy));
    expect(d.screen.body).toEqual([{ key: 'confirm.doneAirtime', params: { msisdn: '267****0001' } }]);
  });

  it.each([
    ['71234567', '26771234567'],
    ['+267 71 234 567', '26771234567'],
    ['0026771234567', '26771234567'],
  ])('another number %j is normalised to %s and becomes identifier and beneficiary', async (typed, e164) => {
    const { d, calls } = await dialogue();
    await toWhoFor(d);
    await d.send(choose(OPT.other));
    expect(d.state).toBe('phone');
    expect(d.body).toEqual(['airtime.otherNumber.prompt']);
    await d.send(text(typed));
    expect(d.state).toBe('amount');
    await d.send(text('20'));
    expect(calls.quote[0]).toMatchObject({ subscriberIdentifier: e164, beneficiaryPhoneNumber: e164 });
  });

  it('invalid numbers re-prompt with the reason; 3 tries then the polite end', async () => {
    const { d, calls } = await dialogue();
    await toWhoFor(d);
    await d.send(choose(OPT.other));
    await d.send(text('123'));
    expect(d.state).toBe('phone');
    expect(d.body).toEqual(['identifier.invalid.invalidPhone', 'airtime.otherNumber.prompt']);
    // A valid South African mobile does not fit the catalogue's Botswana pattern.
    await d.send(text('+27 82 123 4567'));
    expect(d.body[0]).toBe('identifier.invalid.invalidPhone');
    await d.send(text('7abc'));
    expect(d.state).toBe('tooManyTries');
    expect(calls.quote).toEqual([]);
  });

  it('uses the region of the language tag for local numbers', async () => {
    const { services: svc } = services({ defaultRegion: 'BW' });
    const d = new Dialogue(svc, false, { ...INPUT, language: 'en-ZA', msisdn: '27821234567' });
    await d.start();
    await toWhoFor(d);
    await d.send(choose(OPT.other));
    // Local BW form is not a ZA number: refused.
    await d.send(text('71234567'));
    expect(d.state).toBe('phone');
    await d.send(text('0026771234567'));
    expect(d.state).toBe('amount');
  });

  it('my number that does not fit the catalogue rule asks for a number instead', async () => {
    const { services: svc } = services();
    const d = new Dialogue(svc, false, { ...INPUT, msisdn: '27821234567' });
    await d.start();
    await toWhoFor(d);
    await d.send(choose(OPT.self));
    expect(d.state).toBe('phone');
    expect(d.body).toEqual(['identifier.invalid.invalidPhone', 'airtime.otherNumber.prompt']);
  });
});

describe('back and home', () => {
  type Step = Parameters<Dialogue['send']>[0];
  const ELEC = [choose(OPT.product('ELECTRICITY'))];
  const AIR = [choose(OPT.product('AIRTIME'))];
  const AIR_WHO = [...AIR, choose(OPT.provider('BTC'))];
  const cases: Array<[string, Step[], string]> = [
    ['provider → menu', AIR, 'menu'],
    ['airtimeFor → provider', AIR_WHO, 'provider'],
    ['phone → airtimeFor', [...AIR_WHO, choose(OPT.other)], 'airtimeFor'],
    ['amount (other number) → phone', [...AIR_WHO, choose(OPT.other), text('71234567')], 'phone'],
    ['amount (my number) → airtimeFor', [...AIR_WHO, choose(OPT.self)], 'airtimeFor'],
    ['identifier (one provider) → menu', ELEC, 'menu'],
    ['amount → identifier', [...ELEC, text(METER)], 'identifier'],
    ['quote → amount', [...ELEC, text(METER), text('10')], 'amount'],
    ['tokens → menu', [choose(OPT.tokens)], 'menu'],
    ['language → menu', [choose(OPT.language)], 'menu'],
  ];

  it.each(cases)('BACK: %s', async (_label, steps, expected) => {
    const { d } = await dialogue();
    for (const s of steps) await d.send(s);
    expect(d.screen).toMatchObject({ back: true, home: true });
    if (d.state === 'amount') {
      // `0` may have been meant as an amount: asked once, not silently taken as Back.
      await d.send(BACK);
      expect([d.state, d.body[0]]).toEqual(['amount', 'amount.zeroIsBack']);
    }
    await d.send(BACK);
    expect(d.state).toBe(expected);
  });

  it('0 on the amount screen is asked about once; an amount typed after it is taken', async () => {
    const { d, calls } = await dialogue();
    await toAmount(d);
    await d.send(BACK);
    expect(d.body).toEqual(['amount.zeroIsBack', 'amount.prompt']);
    await d.send(text('20'));
    expect(d.state).toBe('quote');
    await d.send(BACK);
    // Back on the amount screen from the quote: a new `0` is asked about again.
    await d.send(BACK);
    expect(d.state).toBe('amount');
    expect(calls.quote).toHaveLength(1);
  });

  it.each(cases)('HOME from the screen of "%s" clears the purchase', async (_label, steps) => {
    const { d } = await dialogue();
    for (const s of steps) await d.send(s);
    await d.send(HOME);
    expect(d.state).toBe('menu');
    expect(d.body).toEqual(['menu.title']);
    expect(d.snap.context.purchase).toMatchObject({
      productType: null,
      providerCode: null,
      identifier: null,
      amountMinor: null,
      quote: null,
      identifierTries: 0,
    });
  });

  it('going back keeps what was typed for the quote but asks again', async () => {
    const { d, calls } = await dialogue();
    await toAmount(d);
    await d.send(text('10'));
    await d.send(BACK);
    await d.send(text('20'));
    expect(d.state).toBe('quote');
    expect(calls.quote.map((q) => q.amount.minor)).toEqual([1000, 2000]);
  });
});

describe('language', () => {
  it('lists every locale and switches the dialogue language', async () => {
    const { d } = await dialogue();
    await d.send(choose(OPT.language));
    expect(d.state).toBe('language');
    expect(d.options).toEqual(['lang:en', 'lang:tn']);
    expect(d.screen.options?.[1].label).toEqual({ literal: 'Setswana' });
    await d.send(choose(OPT.lang('tn')));
    expect(d.state).toBe('menu');
    expect(d.snap.context.language).toBe('tn-BW');
    expect(d.body).toEqual(['language.saved', 'menu.title']);
  });

  it('the new language goes into the quote request', async () => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.language));
    await d.send(choose(OPT.lang('tn')));
    await toAmount(d);
    await d.send(text('10'));
    expect(calls.quote[0].language).toBe('tn-BW');
  });

  it('an unknown language redraws the list', async () => {
    const { d } = await dialogue();
    await d.send(choose(OPT.language));
    await d.send(choose('lang:fr'));
    expect(d.state).toBe('language');
    expect(d.body[0]).toBe('error.invalidChoice');
  });
});

describe('my purchases (v7: was my tokens)', () => {
  it('lists identifiers, amounts and dates in every state; a delivered one shows its token and re-sends it', async () => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.tokens));
    expect(d.state).toBe('tokens');
    expect(calls.recent).toEqual([INPUT.msisdn]);
    expect(d.screen.options).toEqual([
      {
        id: 'purchase:p-9',
        label: {
          key: 'purchases.item.delivered',
          params: { identifier: '04123456789', amount: 'BWP 100.00', date: '2026-11-21' },
        },
      },
      {
        id: 'purchase:p-8',
        label: {
          key: 'purchases.item.delivered',
          params: { identifier: '04123456789', amount: 'BWP 25.50', date: '2026-11-19' },
        },
      },
    ]);
    await d.send(choose('purchase:p-8'));
    expect(d.state).toBe('purchaseDetail');
    expect(d.options).toEqual([OPT.resendToken, OPT.report]);
    await d.send(choose(OPT.resendToken));
    expect(d.state).toBe('resent');
    expect(d.screen).toEqual({ body: [{ key: 'tokens.resent' }], final: true });
    expect(calls.resend).toEqual([{ id: 'p-8', key: 'africastalking:sess-1:1790000000000:resend:p-8' }]);
  });

  it('none: says so, with back and home', async () => {
    const { d } = await dialogue({ purchaseHistory: async () => [] });
    await d.send(choose(OPT.tokens));
    expect(d.screen).toEqual({ body: [{ key: 'purchases.none' }], back: true, home: true });
    await d.send(BACK);
    expect(d.state).toBe('menu');
  });

  it('an unknown purchase id redraws the list', async () => {
    const { d, calls } = await dialogue();
    await d.send(choose(OPT.tokens));
    await d.send(choose('purchase:p-1'));
    expect(d.state).toBe('tokens');
    expect(d.body[0]).toBe('error.invalidChoice');
    expect(calls.resend).toEqual([]);
  });
});

describe('saved meters (v7): read once, when the dialogue starts', () => {
  const ELEC = { productType: 'ELECTRICITY' as const, identifier: METER, name: 'KABELO M' };
  const WATER = { productType: 'WATER' as const, identifier: '5550000001', name: null };

  /** Services whose saved meters are a list of their own, every read and removal counted. */
  function meterServices(start = [ELEC, WATER]) {
    let saved = [...start];
    const reads: string[] = [];
    const removals: string[] = [];
    const overrides: Partial<DialogueServices> = {
      savedMeters: async (msisdn) => {
        reads.push(msisdn);
        return saved;
      },
      removeMeter: async (_msisdn, productType, identifier) => {
        removals.push(`${productType}:${identifier}`);
        saved = saved.filter((m) => !(m.productType === productType && m.identifier === identifier));
        return saved;
      },
    };
    return { overrides, reads, removals };
  }

  it("offers the product's meters on every product choice and Back with no other read", async () => {
    const { overrides, reads } = meterServices();
    const { d } = await dialogue(overrides, true);
    expect(reads).toEqual([INPUT.msisdn]);
    await d.send(choose(OPT.product('ELECTRICITY')));
    expect(d.options).toEqual([OPT.meter(METER), OPT.otherMeter]);
    await d.send(BACK);
    await d.send(choose(OPT.product('WATER')));
    expect(d.options).toEqual([OPT.meter('5550000001'), OPT.otherMeter]);
    // "Another meter": typed; Back from the amount offers the saved ones again.
    await d.send(choose(OPT.otherMeter));
    expect(d.screen.options).toBeUndefined();
    await d.send(text('5550000002'));
    expect(d.state).toBe('amount');
    await d.send(BACK);
    await d.send(BACK);
    expect(d.options).toEqual([OPT.meter('5550000001'), OPT.otherMeter]);
    await d.send(choose(OPT.meter('5550000001')));
    expect(d.state).toBe('amount');
    expect(reads).toEqual([INPUT.msisdn]);
  });

  it('My meters lists both products from the context; a removal shows the list the service answered', async () => {
    const { overrides, reads, removals } = meterServices();
    const { d } = await dialogue(overrides, true);
    await d.send(choose(OPT.meters));
    expect(d.state).toBe('meters');
    expect(d.options).toEqual([OPT.saved('ELECTRICITY', METER), OPT.saved('WATER', '5550000001')]);
    await d.send(choose(OPT.saved('WATER', '5550000001')));
    await d.send(choose(OPT.remove));
    expect(d.state).toBe('meters');
    expect(d.body).toEqual(['meters.removed', 'meters.title']);
    expect(d.options).toEqual([OPT.saved('ELECTRICITY', METER)]);
    expect(removals).toEqual(['WATER:5550000001']);
    // The purchase after it offers what is left, still without a read.
    await d.send(HOME);
    await d.send(choose(OPT.product('WATER')));
    expect(d.screen.options).toBeUndefined();
    expect(reads).toEqual([INPUT.msisdn]);
  });

  it('lets them go at the quote; a Back to the identifier reads them again, once', async () => {
    const { overrides, reads } = meterServices();
    const { d } = await dialogue(overrides, true);
    await d.send(choose(OPT.product('ELECTRICITY')));
    await d.send(choose(OPT.meter(METER)));
    await d.send(text('100'));
    expect(d.state).toBe('quote');
    expect(d.snap.context.meters).toBeUndefined();
    await d.send(BACK);
    await d.send(BACK);
    await d.send(BACK);
    expect(d.state).toBe('identifier');
    expect(d.options).toEqual([OPT.meter(METER), OPT.otherMeter]);
    expect(reads).toEqual([INPUT.msisdn, INPUT.msisdn]);
  });

  it('a read that failed at the dial: the menu still opens, a meter is typed, My meters reads them', async () => {
    let fail = true;
    const { overrides, reads } = meterServices();
    const read = overrides.savedMeters!;
    const { d } = await dialogue({
      ...overrides,
      savedMeters: async (msisdn) => {
        if (fail) throw new Error('records unavailable');
        return read(msisdn);
      },
    });
    expect(d.state).toBe('menu');
    // Tried again when a product is chosen: still failing, the meter is typed.
    await d.send(choose(OPT.product('ELECTRICITY')));
    expect(d.state).toBe('identifier');
    expect(d.screen.options).toBeUndefined();
    fail = false;
    await d.send(HOME);
    await d.send(choose(OPT.meters));
    expect(d.state).toBe('meters');
    expect(reads).toEqual([INPUT.msisdn]);
    expect(d.options).toEqual([OPT.saved('ELECTRICITY', METER), OPT.saved('WATER', '5550000001')]);
  });

  it("an agent's own meters are not kept nor offered to its customers", async () => {
    const { overrides } = meterServices();
    const { d } = await dialogue({
      ...overrides,
      agentOf: async () => ({ status: 'active', lockedUntil: null, accountId: null }),
    });
    expect(d.state).toBe('agentPin');
    expect(d.snap.context.meters).toBeUndefined();
  });
});

describe('TIMEOUT while an actor runs', () => {
  it('catalogue: a retry screen with no way out but retry, which loads again', async () => {
    let first = true;
    const never = deferred<typeof PRODUCTS>();
    const { services: svc, calls } = services();
    const products = svc.products;
    svc.products = () => {
      if (first) {
        first = false;
        return never.promise;
      }
      return products();
    };
    const d = new Dialogue(svc);
    d.sendNoWait({ type: 'HOME' }); // ignored while loading
    const start = d.start();
    d.sendNoWait(TIMEOUT);
    await start;
    expect(d.state).toBe('stalled');
    expect(d.screen).toEqual({
      body: [{ key: 'error.timeout' }],
      options: [{ id: OPT.retry, label: { key: 'retry.again' } }],
      back: false,
      home: false,
    });
    await d.send(HOME);
    expect(d.state).toBe('stalled');
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('menu');
    expect(calls.products).toBe(1);
  });

  it('quote: back goes to the amount; retry re-runs the same quote; a late answer is ignored', async () => {
    const hangs = [deferred<Transaction>(), deferred<Transaction>()];
    let n = 0;
    const { d, calls } = await dialogue({
      quote: (req: PurchaseRequest) => (n < 2 ? hangs[n++].promise : Promise.resolve(quoteFor(req))),
    });
    await toAmount(d);
    d.sendNoWait(text('10'));
    // v7 first looks for a purchase of the meter still in progress (none here).
    await until('quoting', () => d.current().value === 'quoting');
    await d.send(TIMEOUT);
    expect(d.state).toBe('stalled');
    expect(d.screen).toMatchObject({ back: true, home: true, options: [{ id: OPT.retry }] });
    await d.send(BACK);
    expect(d.state).toBe('amount');

    d.sendNoWait(text('12'));
    await until('quoting', () => d.current().value === 'quoting');
    await d.send(TIMEOUT);
    expect(d.state).toBe('stalled');
    // The abandoned call answers late: nothing changes.
    hangs[1].resolve(quoteFor(calls.quote[1]));
    await hangs[1].promise;
    expect(d.current().value).toBe('stalled');
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('quote');
    expect(calls.quote.map((q) => q.amount.minor)).toEqual([1000, 1200, 1200]);
  });

  it('order: retry uses the same idempotency key; home and back stay on the retry screen', async () => {
    const first = deferred<never>();
    const { services: base } = services();
    let n = 0;
    const { d, calls } = await dialogue({
      order: (intent, key) => (++n === 1 ? first.promise : base.order(intent, key)),
    });
    await toAmount(d);
    await d.send(text('10'));
    d.sendNoWait(choose(OPT.buy));
    await d.send(TIMEOUT);
    expect(d.state).toBe('stalled');
    // The order may already exist: the screen says so and never invites a second purchase.
    expect(d.screen).toMatchObject({
      body: [{ key: 'error.orderStalled' }],
      options: [{ id: OPT.retry, label: { key: 'retry.check' } }],
      back: false,
      home: false,
    });
    await d.send(HOME);
    expect(d.state).toBe('stalled');
    await d.send(BACK);
    expect(d.state).toBe('stalled');
    await d.send(text('5'));
    expect(d.body[0]).toBe('error.invalidChoice');
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('done');
    expect(calls.order.map((o) => o.key)).toEqual([
      'africastalking:sess-1:1790000000000',
      'africastalking:sess-1:1790000000000',
    ]);
    expect(calls.order[1].intent).toEqual(calls.order[0].intent);
  });

  it('order error: the same retry screen, same key', async () => {
    const { services: base } = services();
    let n = 0;
    const { d, calls } = await dialogue({
      order: (intent, key) => (++n === 1 ? Promise.reject(new Error('redis down')) : base.order(intent, key)),
    });
    await toAmount(d);
    await d.send(text('10'));
    await d.send(choose(OPT.buy));
    expect(d.state).toBe('stalled');
    expect(d.snap.context.purchase.lastError?.code).toBe('unexpected');
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('done');
    expect(new Set(calls.order.map((o) => o.key)).size).toBe(1);
  });

  it('my tokens and resend: retry screens with back and home', async () => {
    const hang = deferred<never>();
    let lists = 0;
    let resends = 0;
    const { services: base, calls } = services();
    const { d } = await dialogue({
      purchaseHistory: (m: string) => (++lists === 1 ? hang.promise : base.purchaseHistory!(m)),
      resend: (id: string, key: string) =>
        ++resends <= 2 ? Promise.reject(new Error('queue down')) : base.resend(id, key),
    });
    d.sendNoWait(choose(OPT.tokens));
    await d.send(TIMEOUT);
    expect(d.state).toBe('stalled');
    expect(d.screen).toMatchObject({ back: true, home: true });
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('tokens');
    await d.send(choose('purchase:p-9'));
    await d.send(choose(OPT.resendToken));
    expect(d.state).toBe('stalled');
    await d.send(BACK);
    expect(d.state).toBe('tokens');
    await d.send(choose('purchase:p-9'));
    await d.send(choose(OPT.resendToken));
    expect(d.state).toBe('stalled');
    await d.send(choose(OPT.retry));
    expect(d.state).toBe('resent');
    expect(calls.resend).toEqual([{ id: 'p-9', key: 'africastalking:sess-1:1790000000000:resend:p-9' }]);
  });
});
