/** Sections 2.2–2.5, 3, 4.1, 7.3–7.4, 8.2–8.3: v1 validate/confirm, every scenario row, the ledger. */
import { TEST_AIRTIME_NUMBER, TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import {
  balanceMinor,
  expectV1Error,
  harness,
  MONEY,
  post,
  purchaseBody,
  SINGLE_TOKEN,
  toMinor,
  type Harness,
} from './helpers';

const VALIDATE = '/public/v1/purchases/validate';
const CONFIRM = '/public/v1/purchases/confirm';

describe('sandbox: v1 purchases', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ delayMs: 60_000 });
  });
  afterAll(() => h.sandbox.close());

  it('validate returns an ON_GOING quote with units and tariff metadata, and debits nothing', async () => {
    const before = await balanceMinor(h);
    const res = await post(h, VALIDATE, purchaseBody({ amount: 100 }));
    expect(res.status).toBe(200);
    const q = res.data;
    expect(q).toMatchObject({
      status: 'ON_GOING',
      type: 'TOPUP',
      channel: 'USSD',
      subscriber_identifier: TEST_METERS.active,
      subscriber_details: 'KABELO MOTSUMI',
      total: 'BWP 101.50',
      net: 'BWP 100.00',
      charge: 'BWP 1.50',
      commission: 'BWP 0.00',
      entry: 'BWP 101.50',
      payer: {},
      product: { type: 'ELECTRICITY', provider: 'BPC', units: '70.6 kWh' },
    });
    expect(q.id).toEqual(expect.any(Number));
    expect(q.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(q.reference).toMatch(/^TOP\/\d{4}\/\d{2}\/\d+$/);
    expect(q.product).not.toHaveProperty('token');
    expect(Object.keys(q.metadata).sort()).toEqual(
      ['charge', 'cost', 'levy', 'provider_subscriber_details', 'regulatory_fee', 'vat'].sort(),
    );
    for (const key of ['vat', 'levy', 'regulatory_fee', 'charge', 'cost'])
      expect(q.metadata[key]).toMatch(MONEY);
    for (const party of ['operator', 'requester', 'beneficiary']) {
      expect(q[party]).toMatchObject({ id: expect.any(Number), status: 'ACTIVE' });
    }
    expect(await balanceMinor(h)).toBe(before);
  });

  it('confirm debits total, issues a bare 20-digit token and a provider transaction id', async () => {
    const before = await balanceMinor(h);
    const res = await post(h, CONFIRM, purchaseBody({ amount: 100, external_reference: 'p-1' }));
    expect(res.status).toBe(200);
    expect(res.data.status).toBe('SUCCESSFUL');
    expect(res.data.product.token).toMatch(SINGLE_TOKEN);
    expect(res.data.product.units).toBe('70.6 kWh');
    expect(res.data.metadata.provider_transaction_identifier).toEqual(expect.any(String));
    expect(res.data.reference).toMatch(/^TOP\/\d{4}\/\d{2}\/\d+$/);
    expect(await balanceMinor(h)).toBe(before - 10_150);
  });

  it('charges_on_top_flag=false deducts the charge from the amount; amount <= charge is amount_below_charges', async () => {
    const before = await balanceMinor(h);
    const res = await post(h, CONFIRM, purchaseBody({ amount: 100, charges_on_top_flag: false }));
    expect(res.data).toMatchObject({ total: 'BWP 100.00', net: 'BWP 98.50', charge: 'BWP 1.50' });
    expect(await balanceMinor(h)).toBe(before - 10_000);
    const low = await post(h, CONFIRM, purchaseBody({ amount: 1.5, charges_on_top_flag: false }));
    expectV1Error(low, 400, 'amount_below_charges', 'amount');
    expect(await balanceMinor(h)).toBe(before - 10_000);
  });

  it('re-sending a confirm creates a new transaction (double purchase, 8.1)', async () => {
    const before = await balanceMinor(h);
    const a = await post(h, CONFIRM, purchaseBody({ amount: 10, external_reference: 'dup' }));
    const b = await post(h, CONFIRM, purchaseBody({ amount: 10, external_reference: 'dup' }));
    expect(a.data.id).not.toBe(b.data.id);
    expect(a.data.product.token).not.toBe(b.data.product.token);
    expect(await balanceMinor(h)).toBe(before - 2 * 1_150);
  });

  it('airtime: no token, no units, no subscriber_details; confirm metadata only provider_transaction_identifier', async () => {
    const body = purchaseBody({
      product_type: 'AIRTIME',
      provider_code: 'ORANGE',
      subscriber_identifier: TEST_AIRTIME_NUMBER,
      amount: 20,
    });
    const quote = await post(h, VALIDATE, body);
    expect(quote.data.product).toEqual({ type: 'AIRTIME', provider: 'ORANGE' });
    expect(quote.data.metadata).toEqual({});
    expect(quote.data).not.toHaveProperty('subscriber_details');
    const res = await post(h, CONFIRM, body);
    expect(res.data).toMatchObject({ status: 'SUCCESSFUL', total: 'BWP 20.00', charge: 'BWP 0.00' });
    expect(res.data.product).toEqual({ type: 'AIRTIME', provider: 'ORANGE' });
    expect(Object.keys(res.data.metadata)).toEqual(['provider_transaction_identifier']);
    expectV1Error(
      await post(h, VALIDATE, { ...body, subscriber_identifier: '26761234567' }),
      400,
      'invalid_msisdn',
      'subscriber_identifier',
    );
    expectV1Error(
      await post(h, VALIDATE, { ...body, provider_code: 'BPC' }),
      400,
      'invalid_argument',
      'provider_code',
    );
  });

  it('water: litres on validate, a token on confirm, metadata vat/cost/provider id', async () => {
    const body = purchaseBody({
      product_type: 'WATER',
      provider_code: 'WUC',
      subscriber_identifier: TEST_WATER_ACCOUNTS.active,
      amount: 100,
    });
    const quote = await post(h, VALIDATE, body);
    expect(quote.data.product).toEqual({ type: 'WATER', provider: 'WUC', units: '8772 L' });
    expect(Object.keys(quote.data.metadata).sort()).toEqual(['cost', 'vat']);
    expect(quote.data.subscriber_details).toBe('MPHO RAMOTSWA');
    const res = await post(h, CONFIRM, body);
    expect(res.data.product.token).toMatch(SINGLE_TOKEN);
    expect(Object.keys(res.data.metadata).sort()).toEqual(['cost', 'provider_transaction_identifier', 'vat']);
    expectV1Error(
      await post(h, VALIDATE, { ...body, subscriber_identifier: '2000999999' }),
      403,
      'meter_not_allowed',
      'subscriber_identifier',
    );
    expectV1Error(
      await post(h, VALIDATE, { ...body, subscriber_identifier: '12345' }),
      400,
      'invalid_argument',
      'subscriber_identifier',
    );
  });

  it('scenario 3: three tokens, key-change tokens first, exactly as 2.5 describes', async () => {
    const res = await post(
      h,
      CONFIRM,
      purchaseBody({ subscriber_identifier: TEST_METERS.autoKeyChange, amount: 1500 }),
    );
    expect(res.status).toBe(200);
    const token: string = res.data.product.token;
    expect(token).toContain('|');
    const parts = token.split('|').map((p) => {
      const at = p.indexOf(':');
      return [p.slice(0, at).trim(), p.slice(at + 1).trim()];
    });
    expect(parts.map(([d]) => d)).toEqual(['KeyChange Token1', 'KeyChange Token2', 'Credit Token']);
    for (const [, value] of parts) expect(value).toMatch(SINGLE_TOKEN);
    expect(token).toMatch(
      /^KeyChange Token1: [0-9 ]{24} \| KeyChange Token2: [0-9 ]{24} \| Credit Token: [0-9 ]{24}$/,
    );
    expect(res.data.metadata.charge).toBe('BWP 1000.00');
  });

  // Every row of 8.3; `ok` rows succeed on validate and confirm, the others fail on both.
  const rows: [string, string, number, number | null, string | null, string | null][] = [
    ['1', TEST_METERS.active, 0.01, 200, null, null],
    ['1a', TEST_METERS.tariffCharge, 50, 200, null, null],
    ['1b ok', TEST_METERS.subAccountSplit, 60.01, 200, null, null],
    ['1b low', TEST_METERS.subAccountSplit, 60, 400, 'amount_below_minimum', 'amount'],
    ['1c (13 digits)', TEST_METERS.active13, 25, 200, null, null],
    ['2', TEST_METERS.blocked, 50, 422, 'meter_blocked', 'subscriber_identifier'],
    ['2a', TEST_METERS.purchasesBlocked, 50, 422, 'meter_blocked', 'subscriber_identifier'],
    ['2b', TEST_METERS.debtFirst, 50, 422, 'provider_error', null],
    ['2c', TEST_METERS.accountBlock, 50, 422, 'provider_error', null],
    ['2d', TEST_METERS.notFound, 50, 404, 'meter_not_found', 'subscriber_identifier'],
    ['3 low', TEST_METERS.autoKeyChange, 1000, 400, 'amount_below_minimum', 'amount'],
    ['4', TEST_METERS.fixedCharge, 1000, 400, 'amount_below_minimum', 'amount'],
    ['5', TEST_METERS.fixedCharge, 1000.01, 200, null, null],
    ['7 at max', TEST_METERS.maxVend, 100000, 200, null, null],
    ['7 above', TEST_METERS.maxVend, 100000.01, 400, 'amount_above_maximum', 'amount'],
  ];

  it.each(rows)('scenario %s (meter %s, amount %p)', async (_row, meter, amount, status, code, param) => {
    const body = purchaseBody({ subscriber_identifier: meter, amount });
    const before = await balanceMinor(h);
    const quote = await post(h, VALIDATE, body);
    const res = await post(h, CONFIRM, body);
    if (code === null) {
      expect([quote.status, res.status]).toEqual([status, status]);
      expect(res.data.status).toBe('SUCCESSFUL');
      expect(res.data.product.token).toContain(' ');
      expect(await balanceMinor(h)).toBe(before - toMinor(res.data.total));
    } else {
      expectV1Error(quote, status as number, code, param);
      expectV1Error(res, status as number, code, param);
      expect(res.data.error.retryable).toBe(false);
      expect(await balanceMinor(h)).toBe(before);
    }
  });

  it('scenario 2a/2b/2c messages echo the provider wording', async () => {
    const message = async (meter: string): Promise<string> =>
      (await post(h, VALIDATE, purchaseBody({ subscriber_identifier: meter }))).data.error.message;
    expect(await message(TEST_METERS.purchasesBlocked)).toBe('Customer purchases blocked');
    expect(await message(TEST_METERS.debtFirst)).toBe('Purchase only allowed once the debt is paid');
    expect(await message(TEST_METERS.accountBlock)).toBe('Account-level transaction block');
  });

  it('the staging lock refuses other meters; malformed meters are invalid_meter_number', async () => {
    expectV1Error(
      await post(h, VALIDATE, purchaseBody({ subscriber_identifier: '09999999999' })),
      403,
      'meter_not_allowed',
      'subscriber_identifier',
    );
    for (const meter of ['1234567890', '12345678901234', '0123456789a', '']) {
      expectV1Error(
        await post(h, VALIDATE, purchaseBody({ subscriber_identifier: meter })),
        400,
        'invalid_meter_number',
        'subscriber_identifier',
      );
    }
  });

  it('insufficient_balance names the gap and debits nothing', async () => {
    const before = await balanceMinor(h, 1003);
    const res = await post(h, CONFIRM, purchaseBody({ debited_account_id: 1003, amount: 600 }));
    expectV1Error(res, 402, 'insufficient_balance');
    expect(res.data.error.type).toBe('insufficient_funds_error');
    expect(res.data.error.message).toContain('short by BWP 101.50');
    expect(await balanceMinor(h, 1003)).toBe(before);
    const ok = await post(h, CONFIRM, purchaseBody({ debited_account_id: 1003, amount: 10 }));
    expect(ok.status).toBe(200);
    expect(await balanceMinor(h, 1003)).toBe(before - 1_150);
  });

  const invalid: [string, Record<string, unknown>, string, string | null][] = [
    ['missing source_channel', { source_channel: undefined }, 'missing_field', 'source_channel'],
    [
      'bad source_channel (SMS_MO is legacy only)',
      { source_channel: 'SMS_MO' },
      'invalid_argument',
      'source_channel',
    ],
    ['bad language', { language: 'english' }, 'invalid_argument', 'language'],
    ['bad product_type', { product_type: 'GAS' }, 'invalid_argument', 'product_type'],
    ['missing provider_code', { provider_code: undefined }, 'missing_field', 'provider_code'],
    ['string account id', { debited_account_id: '1001' }, 'invalid_argument', 'debited_account_id'],
    ['missing amount', { amount: undefined }, 'missing_field', 'amount'],
    ['string amount', { amount: '100' }, 'invalid_amount', 'amount'],
    ['zero amount', { amount: 0 }, 'invalid_amount', 'amount'],
    ['negative amount', { amount: -5 }, 'invalid_amount', 'amount'],
    ['three decimals', { amount: 10.001 }, 'invalid_amount', 'amount'],
    ['bad currency', { currency: 'bwp' }, 'invalid_argument', 'currency'],
    ['foreign currency', { currency: 'USD' }, 'invalid_argument', 'currency'],
    ['string flag', { charges_on_top_flag: 'yes' }, 'invalid_argument', 'charges_on_top_flag'],
    ['bad beneficiary', { beneficiary_phone_number: '0712' }, 'invalid_msisdn', 'beneficiary_phone_number'],
    ['other user account', { debited_account_id: 2001 }, 'resource_not_found', 'debited_account_id'],
    ['array body', { __array: true }, 'invalid_argument', null],
  ];

  it.each(invalid)('%s → 400-class %s, nothing debited', async (_label, overrides, code, param) => {
    const before = await balanceMinor(h);
    const body = overrides.__array ? [purchaseBody()] : purchaseBody(overrides);
    const res = await post(h, CONFIRM, body);
    expectV1Error(res, code === 'resource_not_found' ? 404 : 400, code, param);
    expect(await balanceMinor(h)).toBe(before);
  });

  it('unlocked mode: any well-formed meter behaves like scenario 1', async () => {
    const open = await harness({ meterLock: false });
    try {
      const res = await post(
        open,
        CONFIRM,
        purchaseBody({ subscriber_identifier: '09999999999', amount: 5 }),
      );
      expect(res.status).toBe(200);
      expect(res.data.product.token).toMatch(SINGLE_TOKEN);
      const blocked = await post(
        open,
        VALIDATE,
        purchaseBody({ subscriber_identifier: TEST_METERS.blocked }),
      );
      expectV1Error(blocked, 422, 'meter_blocked');
    } finally {
      await open.sandbox.close();
    }
  });

  it('the ledger lists every transaction with status, references, amounts and debits', async () => {
    const res = await h.http.get('/sandbox/transactions');
    expect(res.status).toBe(200);
    const row = res.data.find((t: { external_reference: string }) => t.external_reference === 'p-1');
    expect(row).toMatchObject({
      status: 'SUCCESSFUL',
      subscriber_identifier: TEST_METERS.active,
      product_type: 'ELECTRICITY',
      account_id: 1001,
      amount: 'BWP 100.00',
      total: 'BWP 101.50',
      debited_minor: 10_150,
      token: expect.stringMatching(SINGLE_TOKEN),
    });
    const failed = res.data.filter((t: { status: string }) => t.status === 'FAILED');
    expect(failed.length).toBeGreaterThan(0);
    for (const t of failed) expect(t.debited_minor).toBe(0);
    const scenarios = await h.http.get('/sandbox/scenarios');
    expect(scenarios.data.map((s: { scenario: string }) => s.scenario)).toEqual(
      expect.arrayContaining(['1', '1a', '1b', '1c', '2', '2a', '2b', '2c', '2d', '3', '4', '5', '6', '7']),
    );
  });
});
