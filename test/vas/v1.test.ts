import {
  startSandbox,
  TEST_AIRTIME_NUMBER,
  TEST_METERS,
  TEST_WATER_ACCOUNTS,
  SANDBOX_ACCOUNTS,
  type RunningSandbox,
} from '../../src/sandbox';
import {
  ConflictError,
  InsufficientFundsError,
  NotFoundError,
  PermissionError,
  ProviderError,
  TransportError,
  ValidationError,
  tokensForDisplay,
  type PurchaseService,
} from '../../src/vas';
import { ctx, ledger, purchase, ref, serviceFor } from './helpers';

/** Every staging scenario of 8.3 through the v1 client, over real HTTP against the sandbox. */

let sandbox: RunningSandbox;
let service: PurchaseService;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true, delayMs: 60_000 });
  service = serviceFor(sandbox.url);
});
afterAll(() => sandbox.close());

const bwp = (units: number) => ({ currency: 'BWP', minor: units * 100 });

describe('catalogue and accounts', () => {
  it('lists the products with providers and identifier rules (no hint when the admin left none)', async () => {
    const products = await service.listProducts(ctx());
    expect(products.map((p) => p.productType)).toEqual(['ELECTRICITY', 'AIRTIME', 'WATER']);
    const electricity = products[0];
    expect(electricity.providers).toEqual([{ code: 'BPC', name: 'Botswana Power Corporation' }]);
    expect(electricity.identifier).toEqual({
      label: 'Meter number',
      minLength: 11,
      maxLength: 13,
      pattern: '^[0-9]{11,13}$',
      hint: null,
    });
    expect(products[1].identifier.hint).toBe('Mobile number, e.g. 26771234567');
  });

  it('lists accounts with exact balances, ordered by rank', async () => {
    const accounts = await service.listAccounts(ctx());
    expect(accounts.map((a) => a.id)).toEqual([1001, 1002, 1003, 1004]);
    expect(accounts[0].balance).toEqual({ currency: 'BWP', minor: 100_000_000 });
  });

  it('reads one account and maps 404 to NotFoundError', async () => {
    expect((await service.getAccount(SANDBOX_ACCOUNTS.topup, ctx())).category).toBe('TOPUP');
    await expect(service.getAccount(SANDBOX_ACCOUNTS.otherUsers, ctx())).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('staging scenarios (8.3)', () => {
  it.each([
    ['1 active 11-digit meter', TEST_METERS.active, 100],
    ['1a tariff charge', TEST_METERS.tariffCharge, 100],
    ['1b sub-account split above 60', TEST_METERS.subAccountSplit, 61],
    ['1c active 13-digit meter', TEST_METERS.active13, 100],
    ['5 fixed charge above 1000', TEST_METERS.fixedCharge, 1500],
  ])('%s: validate quotes, confirm issues one token', async (_label, meter, amount) => {
    const request = purchase({ subscriberIdentifier: meter, amount: bwp(amount), externalReference: ref() });
    const quote = await service.validate(request, ctx());
    expect(quote.status).toBe('ON_GOING');
    expect(quote.tokens).toEqual([]);
    expect(quote.units).toMatch(/^\d+(\.\d+)? kWh$/);
    expect(quote.total.currency).toBe('BWP');
    const done = await service.confirm(request, ctx());
    expect(done.status).toBe('SUCCESSFUL');
    expect(done.subscriberIdentifier).toBe(meter);
    expect(done.tokens).toHaveLength(1);
    expect(done.tokens[0].description).toBeNull();
    expect(done.rawToken).toBe(done.tokens[0].value);
    expect(done.providerTransactionId).not.toBeNull();
    expect(done.reference).toMatch(/^TOP\/\d{4}\/\d{2}\/\d+$/);
  });

  it('3 auto key change: three tokens in order, key-change ones first', async () => {
    const done = await service.confirm(
      purchase({
        subscriberIdentifier: TEST_METERS.autoKeyChange,
        amount: bwp(1500),
        externalReference: ref(),
      }),
      ctx(),
    );
    expect(done.tokens.map((t) => t.description)).toEqual([
      'KeyChange Token1',
      'KeyChange Token2',
      'Credit Token',
    ]);
    expect(done.tokens.map((t) => t.isKeyChange)).toEqual([true, true, false]);
    expect(tokensForDisplay(done.tokens)).toEqual(done.tokens);
    expect(done.rawToken).toContain('|');
  });

  it.each([
    ['2 blocked', TEST_METERS.blocked, ProviderError, 'meter_blocked'],
    ['2a purchases blocked', TEST_METERS.purchasesBlocked, ProviderError, 'meter_blocked'],
    ['2b debt first', TEST_METERS.debtFirst, ProviderError, 'provider_error'],
    ['2c account block', TEST_METERS.accountBlock, ProviderError, 'provider_error'],
    ['2d not found', TEST_METERS.notFound, NotFoundError, 'meter_not_found'],
  ])('%s: validate is refused with a typed error', async (_label, meter, cls, code) => {
    const error = await service
      .validate(purchase({ subscriberIdentifier: meter }), ctx('val'))
      .catch((e) => e);
    expect(error).toBeInstanceOf(cls);
    expect(error).toMatchObject({ code, outcome: 'rejected', retryable: false });
    expect(error.requestId).toMatch(/^val-/);
  });

  it('4 fixed charge at or below 1000: amount_below_minimum on amount', async () => {
    const error = await service
      .validate(purchase({ subscriberIdentifier: TEST_METERS.fixedCharge, amount: bwp(1000) }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'amount_below_minimum', param: 'amount', status: 400 });
  });

  it('7 maximum vend: amount_above_maximum', async () => {
    const error = await service
      .validate(purchase({ subscriberIdentifier: TEST_METERS.maxVend, amount: bwp(100_001) }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe('amount_above_maximum');
  });

  it('6 delayed meter: confirm times out as outcome unknown; retry answers transaction_pending meanwhile', async () => {
    const short = serviceFor(sandbox.url, { timeoutMs: 500, confirmTimeoutMs: 1000 });
    const externalReference = ref('delayed');
    const request = purchase({ subscriberIdentifier: TEST_METERS.delayed, externalReference });
    const error = await short.confirm(request, ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('unknown');
    const pending = await short
      .retry(
        {
          sourceChannel: 'USSD',
          language: 'en-BW',
          productType: 'ELECTRICITY',
          subscriberIdentifier: TEST_METERS.delayed,
          externalReference,
        },
        ctx(),
      )
      .catch((e) => e);
    expect(pending).toBeInstanceOf(ConflictError);
    expect(pending).toMatchObject({ code: 'transaction_pending', retryable: true });
    const rows = await ledger(sandbox.url);
    expect(rows.filter((r) => r.external_reference === externalReference)).toHaveLength(1);
  });

  it('retry of a reference never seen is transaction_not_found; managed-retry accounts answer retries_disabled', async () => {
    const retry = {
      sourceChannel: 'USSD' as const,
      language: 'en-BW',
      productType: 'ELECTRICITY' as const,
      subscriberIdentifier: TEST_METERS.active,
    };
    await expect(service.retry({ ...retry, externalReference: ref('none') }, ctx())).rejects.toMatchObject({
      code: 'transaction_not_found',
    });
    const externalReference = ref('managed');
    await service.confirm(
      purchase({ debitedAccountId: SANDBOX_ACCOUNTS.managedRetry, externalReference }),
      ctx(),
    );
    const error = await service.retry({ ...retry, externalReference }, ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error.code).toBe('retries_disabled');
  });

  it('retry after a successful confirm returns the same token', async () => {
    const externalReference = ref('again');
    const done = await service.confirm(purchase({ externalReference }), ctx());
    const again = await service.retry(
      {
        sourceChannel: 'USSD',
        language: 'en-BW',
        productType: 'ELECTRICITY',
        subscriberIdentifier: TEST_METERS.active,
        externalReference,
      },
      ctx(),
    );
    expect(again.status).toBe('SUCCESSFUL');
    expect(again.rawToken).toBe(done.rawToken);
    expect(again.id).toBe(done.id);
  });

  it('meter outside the staging lock is meter_not_allowed; a low balance is insufficient funds', async () => {
    await expect(
      service.validate(purchase({ subscriberIdentifier: '09999999999' }), ctx()),
    ).rejects.toMatchObject({
      code: 'meter_not_allowed',
    });
    const error = await service
      .confirm(purchase({ debitedAccountId: SANDBOX_ACCOUNTS.topup, amount: bwp(900) }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(InsufficientFundsError);
  });

  it('airtime: no token, no units; water: litres on validate, a token on confirm', async () => {
    const airtime = await service.confirm(
      purchase({
        productType: 'AIRTIME',
        providerCode: 'MASCOM',
        subscriberIdentifier: TEST_AIRTIME_NUMBER,
        amount: bwp(10),
      }),
      ctx(),
    );
    expect(airtime).toMatchObject({
      status: 'SUCCESSFUL',
      productType: 'AIRTIME',
      units: null,
      tokens: [],
      rawToken: null,
    });
    const water = purchase({
      productType: 'WATER',
      providerCode: 'WUC',
      subscriberIdentifier: TEST_WATER_ACCOUNTS.active,
      amount: bwp(50),
    });
    expect((await service.validate(water, ctx())).units).toMatch(/ L$/);
    expect((await service.confirm(water, ctx())).tokens).toHaveLength(1);
  });

  it('SMS_MO is sent as USSD on v1 (the v1 channel set has no SMS_MO)', async () => {
    const quote = await service.validate(purchase({ sourceChannel: 'SMS_MO' }), ctx());
    expect(quote.status).toBe('ON_GOING');
  });
});
