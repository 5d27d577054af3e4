/** Sections 2.8, 4.2, 7.5, 9: the legacy `/api/topup/*` interface, sharing ledger and scenarios. */
import { TEST_METERS } from '../../src/sandbox';
import { auth, balanceMinor, harness, legacyBody, post, type Harness } from './helpers';
import type { AxiosResponse } from 'axios';

function expectLegacyError(res: AxiosResponse, status: number, code: string, field?: string): void {
  expect({ status: res.status, code: res.data.response_code }).toEqual({ status, code });
  expect(res.data).not.toHaveProperty('error');
  expect(Object.keys(res.data).sort()).toEqual(
    ['developer_message', 'errors', 'response_code', 'response_message', 'timestamp'].sort(),
  );
  expect(Number.isInteger(res.data.timestamp)).toBe(true);
  expect(res.data.developer_message).toMatch(/Exception$/);
  if (field) expect(res.data.errors).toHaveProperty(field);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
}

describe('sandbox: legacy interface', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.sandbox.close());

  it('validate: legacy shape, empty metadata, no product/subscriber fields, no token', async () => {
    const res = await post(h, '/api/topup/validate', legacyBody());
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      status: 'ON_GOING',
      type: 'TOPUP',
      channel: 'SMS_MO',
      meter_number: TEST_METERS.active,
      meter_details: 'KABELO MOTSUMI',
      total: 'BWP 101.50',
      metadata: {},
    });
    for (const absent of [
      'product',
      'subscriber_identifier',
      'subscriber_details',
      'token',
      'electricity_units',
    ]) {
      expect(res.data).not.toHaveProperty(absent);
    }
  });

  it('confirm: token, electricity_units like 70.6kWh, provider_meter_details; debits the shared ledger', async () => {
    const before = await balanceMinor(h);
    const res = await post(h, '/api/topup/confirm', legacyBody({ external_reference: 'l-1' }));
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'SUCCESSFUL', electricity_units: '70.6kWh' });
    expect(res.data.token).toMatch(/^[0-9]{4}( [0-9]{4}){4}$/);
    expect(res.data.reference).toMatch(/^TOP\/\d{4}\/\d{2}\/\d+$/);
    expect(Object.keys(res.data.metadata).sort()).toEqual(
      [
        'charge',
        'cost',
        'levy',
        'provider_meter_details',
        'provider_transaction_identifier',
        'regulatory_fee',
        'vat',
      ].sort(),
    );
    expect(await balanceMinor(h)).toBe(before - 10_150);
    const retry = await post(h, '/api/topup/retry', {
      date: '2025-01-01 10:05:00',
      external_reference: 'l-1',
      language: 'en-BW',
      meter_number: TEST_METERS.active,
      source_channel: 'SMS_MO',
      source_tag: 'gateway',
    });
    expect(retry.data).toEqual(res.data);
    expect(await balanceMinor(h)).toBe(before - 10_150);
    // the v1 retry finds the same transaction (one ledger)
    const v1 = await post(h, '/public/v1/purchases/retry', {
      subscriber_identifier: TEST_METERS.active,
      external_reference: 'l-1',
    });
    expect(v1.data.product.token).toBe(res.data.token);
  });

  it('scenario 3 token is identical in wire format (9.3)', async () => {
    const res = await post(
      h,
      '/api/topup/confirm',
      legacyBody({ meter_number: TEST_METERS.autoKeyChange, amount: 2000 }),
    );
    expect(res.data.token.split('|').map((p: string) => p.split(':')[0]?.trim())).toEqual([
      'KeyChange Token1',
      'KeyChange Token2',
      'Credit Token',
    ]);
  });

  it.each([
    [TEST_METERS.blocked, 50, 422, 'meter_blocked', 'meter_number'],
    [TEST_METERS.notFound, 50, 404, 'meter_not_found', 'meter_number'],
    [TEST_METERS.fixedCharge, 1000, 400, 'amount_below_minimum', 'amount'],
    [TEST_METERS.maxVend, 100001, 400, 'amount_above_maximum', 'amount'],
    ['09999999999', 50, 403, 'meter_not_allowed', 'meter_number'],
    ['123', 50, 400, 'invalid_meter_number', 'meter_number'],
  ])('meter %s amount %p → %p %s in the legacy envelope', async (meter, amount, status, code, field) => {
    const before = await balanceMinor(h);
    for (const path of ['/api/topup/validate', '/api/topup/confirm']) {
      expectLegacyError(
        await post(h, path, legacyBody({ meter_number: meter, amount })),
        status,
        code,
        field,
      );
    }
    expect(await balanceMinor(h)).toBe(before);
  });

  it('request errors: POS is v1 only, missing meter_number, bad token, wrong method, unknown path', async () => {
    expectLegacyError(
      await post(h, '/api/topup/validate', legacyBody({ source_channel: 'POS' })),
      400,
      'invalid_argument',
      'source_channel',
    );
    expectLegacyError(
      await post(h, '/api/topup/validate', legacyBody({ meter_number: undefined })),
      400,
      'missing_field',
      'meter_number',
    );
    expectLegacyError(
      await post(h, '/api/topup/validate', legacyBody({ date: '01/01/2025' })),
      400,
      'invalid_argument',
      'date',
    );
    expectLegacyError(await h.http.post('/api/topup/validate', legacyBody()), 401, 'invalid_credentials');
    expectLegacyError(await h.http.get('/api/topup/confirm', auth(h)), 400, 'method_not_allowed');
    expectLegacyError(await h.http.get('/api/topup/nothing', auth(h)), 404, 'resource_not_found');
    expectLegacyError(
      await post(h, '/api/topup/retry', { external_reference: 'never', meter_number: TEST_METERS.active }),
      404,
      'transaction_not_found',
    );
  });

  it('accepts the notification flags and hard_validate', async () => {
    const res = await post(
      h,
      '/api/topup/validate',
      legacyBody({
        hard_validate: true,
        send_requester_sms: false,
        send_beneficiary_sms: true,
        comment: 'x',
      }),
    );
    expect(res.status).toBe(200);
  });
});
