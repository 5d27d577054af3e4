import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import {
  NotFoundError,
  ProviderError,
  UnsupportedProductError,
  ValidationError,
  type Transaction,
} from '../../src/vas';
import { legacyDate, legacyPurchaseBody } from '../../src/vas/legacy-adapter';
import { armFault, ctx, ledger, purchase, ref, serviceFor, startCountingProxy } from './helpers';

/** The legacy adapter answers electricity exactly like v1: same Transaction shape, same errors. */

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true, delayMs: 60_000 });
});
afterAll(() => sandbox.close());

const bwp = (units: number) => ({ currency: 'BWP', minor: units * 100 });
/** The fields that differ per transaction (ids, references, tokens, provider ids, request ids). */
const stable = (t: Transaction) => ({
  status: t.status,
  productType: t.productType,
  providerCode: t.providerCode,
  subscriberIdentifier: t.subscriberIdentifier,
  subscriberDetails: t.subscriberDetails,
  total: t.total,
  net: t.net,
  charge: t.charge,
  commission: t.commission,
  units: t.units,
  tokens: t.tokens.map((token) => ({ description: token.description, isKeyChange: token.isKeyChange })),
  metadataKeys: Object.keys(t.metadata)
    .filter((k) => k !== 'provider_meter_details')
    .sort(),
});

describe('legacy parity with v1 for electricity', () => {
  const v1 = () => serviceFor(sandbox.url);
  const legacy = () => serviceFor(sandbox.url, { interface: 'legacy' });

  it.each([
    ['active', TEST_METERS.active, 100],
    ['tariff charge', TEST_METERS.tariffCharge, 250],
    ['13-digit', TEST_METERS.active13, 100],
    ['auto key change', TEST_METERS.autoKeyChange, 1500],
  ])('%s meter: confirm gives the same Transaction shape', async (_label, meter, amount) => {
    const a = await v1().confirm(
      purchase({ subscriberIdentifier: meter, amount: bwp(amount), externalReference: ref() }),
      ctx(),
    );
    const b = await legacy().confirm(
      purchase({ subscriberIdentifier: meter, amount: bwp(amount), externalReference: ref() }),
      ctx(),
    );
    expect(stable(b)).toEqual(stable(a));
    expect(b.providerTransactionId).not.toBeNull();
  });

  it('retry finds the original purchase through the legacy interface', async () => {
    const externalReference = ref('legacy');
    const done = await legacy().confirm(purchase({ externalReference }), ctx());
    const again = await legacy().retry(
      {
        sourceChannel: 'USSD',
        language: 'en-BW',
        productType: 'ELECTRICITY',
        subscriberIdentifier: TEST_METERS.active,
        externalReference,
      },
      ctx(),
    );
    expect(again.rawToken).toBe(done.rawToken);
    const rows = (await ledger(sandbox.url)).filter((r) => r.external_reference === externalReference);
    expect(rows.map((r) => r.interface)).toEqual(['legacy']);
  });

  it.each([
    [TEST_METERS.blocked, 100, ProviderError, 'meter_blocked'],
    [TEST_METERS.notFound, 100, NotFoundError, 'meter_not_found'],
    [TEST_METERS.fixedCharge, 1000, ValidationError, 'amount_below_minimum'],
  ])('legacy envelope errors map to the v1 classes (%s)', async (meter, amount, cls, code) => {
    const request = purchase({ subscriberIdentifier: meter, amount: bwp(amount) });
    const a = await v1()
      .validate(request, ctx())
      .catch((e) => e);
    const b = await legacy()
      .validate(request, ctx())
      .catch((e) => e);
    expect(b).toBeInstanceOf(cls);
    expect(a).toBeInstanceOf(cls);
    expect({ code: b.code, type: b.type, status: b.status, retryable: b.retryable }).toEqual({
      code,
      type: a.type,
      status: a.status,
      retryable: a.retryable,
    });
  });

  it('provider_timeout on legacy confirm is outcome unknown', async () => {
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'provider_timeout' });
    await expect(legacy().confirm(purchase({ externalReference: ref() }), ctx())).rejects.toMatchObject({
      code: 'provider_timeout',
      outcome: 'unknown',
    });
  });

  it('airtime and water are refused locally before any call', async () => {
    const proxy = await startCountingProxy(sandbox.url);
    try {
      const service = serviceFor(proxy.url, { interface: 'legacy' });
      const error = await service
        .confirm(
          purchase({ productType: 'AIRTIME', providerCode: 'MASCOM', subscriberIdentifier: '26771234567' }),
          ctx(),
        )
        .catch((e) => e);
      expect(error).toBeInstanceOf(UnsupportedProductError);
      expect(error).toMatchObject({
        code: 'unsupported_product',
        outcome: 'rejected',
        param: 'product_type',
      });
      await expect(
        service.retry(
          {
            sourceChannel: 'USSD',
            language: 'en',
            productType: 'WATER',
            subscriberIdentifier: '2000123456',
            externalReference: 'x',
          },
          ctx(),
        ),
      ).rejects.toBeInstanceOf(UnsupportedProductError);
      expect(proxy.count('/public/v1/auth/login')).toBe(0);
      // The catalogue (read through v1) offers only what this interface sells; accounts as v1.
      expect((await service.listProducts(ctx())).map((p) => p.productType)).toEqual(['ELECTRICITY']);
      expect((await service.listAccounts(ctx())).length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('the legacy body carries meter_number, a dated stamp, our source tag and no server-side SMS', () => {
    const body = legacyPurchaseBody(purchase({ externalReference: 'E1' }), new Date(2025, 0, 2, 3, 4, 5));
    expect(body).toMatchObject({
      meter_number: '01234567890',
      date: '2025-01-02 03:04:05',
      source_tag: 'ussd-gateway',
      amount: 100,
      send_beneficiary_sms: false,
      send_requester_sms: false,
      external_reference: 'E1',
    });
    expect(body).not.toHaveProperty('product_type');
    expect(legacyDate()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});
