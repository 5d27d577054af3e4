/** Sections 1.2, 3, 4.1 retry, 7.4.2 and scenario 6; operator fault injection. */
import { TEST_METERS } from '../../src/sandbox';
import {
  auth,
  balanceMinor,
  eventually,
  expectV1Error,
  harness,
  post,
  purchaseBody,
  type Harness,
} from './helpers';

const CONFIRM = '/public/v1/purchases/confirm';
const RETRY = '/public/v1/purchases/retry';
const DELAY_MS = 2000;

describe('sandbox: retry', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ delayMs: DELAY_MS });
  });
  afterAll(() => h.sandbox.close());
  afterEach(() => h.http.delete('/sandbox/faults'));

  const retryBody = (ref: string, meter: string = TEST_METERS.active): object => ({
    source_channel: 'USSD',
    language: 'en-BW',
    subscriber_identifier: meter,
    external_reference: ref,
  });

  it('a successful original comes back unchanged: same id, reference, token; no second debit', async () => {
    const original = await post(h, CONFIRM, purchaseBody({ amount: 40, external_reference: 'r-ok' }));
    const before = await balanceMinor(h);
    const again = await post(h, RETRY, retryBody('r-ok'));
    expect(again.status).toBe(200);
    expect(again.data).toEqual(original.data);
    expect(await balanceMinor(h)).toBe(before);
  });

  it('a failed original answers its original error (400-class)', async () => {
    await post(
      h,
      CONFIRM,
      purchaseBody({
        subscriber_identifier: TEST_METERS.fixedCharge,
        amount: 500,
        external_reference: 'r-fail',
      }),
    );
    const res = await post(h, RETRY, retryBody('r-fail', TEST_METERS.fixedCharge));
    expectV1Error(res, 400, 'amount_below_minimum', 'amount');
  });

  it('unknown lookup key → 404 transaction_not_found; missing key → missing_field', async () => {
    expectV1Error(await post(h, RETRY, retryBody('never')), 404, 'transaction_not_found');
    expectV1Error(
      await post(h, RETRY, { subscriber_identifier: TEST_METERS.active }),
      400,
      'missing_field',
      'external_reference',
    );
  });

  it('a managed-retry account answers 403 retries_disabled', async () => {
    const res = await post(
      h,
      CONFIRM,
      purchaseBody({ debited_account_id: 1004, amount: 10, external_reference: 'r-m' }),
    );
    expect(res.status).toBe(200);
    expectV1Error(await post(h, RETRY, retryBody('r-m')), 403, 'retries_disabled');
  });

  it('scenario 6: the client hangs up, the purchase completes anyway; retry is pending, then the original', async () => {
    const before = await balanceMinor(h);
    const body = purchaseBody({
      subscriber_identifier: TEST_METERS.delayed,
      amount: 75,
      external_reference: 'r-slow',
    });
    const quote = await post(h, '/public/v1/purchases/validate', body);
    expect(quote.status).toBe(200);
    const hungUp = await h.http
      .post(CONFIRM, body, { ...auth(h), timeout: 100 })
      .catch((e: { code?: string }) => e);
    expect((hungUp as { code?: string }).code).toBe('ECONNABORTED');

    const pending = await post(h, RETRY, retryBody('r-slow', TEST_METERS.delayed));
    expectV1Error(pending, 409, 'transaction_pending');
    expect(pending.data.error.retryable).toBe(true);
    // a second confirm on the same meter while in flight is refused too, and not recorded
    expectV1Error(await post(h, CONFIRM, body), 409, 'transaction_pending');

    const done = await eventually(async () => {
      const res = await post(h, RETRY, retryBody('r-slow', TEST_METERS.delayed));
      return res.status === 200 ? res : undefined;
    });
    expect(done.data.status).toBe('SUCCESSFUL');
    expect(done.data.product.token).toMatch(/^[0-9]{4}( [0-9]{4}){4}$/);
    expect(await balanceMinor(h)).toBe(before - 7_650);
    const ledger = await h.http.get('/sandbox/transactions');
    const rows = ledger.data.filter((t: { external_reference: string }) => t.external_reference === 'r-slow');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'SUCCESSFUL',
      token: done.data.product.token,
      debited_minor: 7_650,
    });
    const again = await post(h, RETRY, retryBody('r-slow', TEST_METERS.delayed));
    expect(again.data).toEqual(done.data);
  });

  it('fault provider_timeout on confirm: 504, the purchase completed; retry gives the result', async () => {
    await h.http.post('/sandbox/faults', { endpoint: 'confirm', fault: 'provider_timeout' });
    const before = await balanceMinor(h);
    const res = await post(h, CONFIRM, purchaseBody({ amount: 30, external_reference: 'f-timeout' }));
    expectV1Error(res, 504, 'provider_timeout');
    expect(res.data.error).toMatchObject({ type: 'provider_timeout', retryable: true });
    expect(await balanceMinor(h)).toBe(before - 3_150);
    const retry = await post(h, RETRY, retryBody('f-timeout'));
    expect(retry.data.status).toBe('SUCCESSFUL');
    expect(await balanceMinor(h)).toBe(before - 3_150);
  });

  it('fault provider_unavailable on confirm: 502, nothing debited; retry reports a genuine failure', async () => {
    await h.http.post('/sandbox/faults', { endpoint: 'confirm', fault: 'provider_unavailable' });
    const before = await balanceMinor(h);
    const res = await post(h, CONFIRM, purchaseBody({ amount: 30, external_reference: 'f-unavail' }));
    expectV1Error(res, 502, 'provider_unavailable');
    expect(await balanceMinor(h)).toBe(before);
    const retry = await post(h, RETRY, retryBody('f-unavail'));
    expectV1Error(retry, 422, 'provider_error');
    expect(retry.data.error.retryable).toBe(false);
  });

  it('fault drop on confirm: the socket closes without an answer, the purchase completed', async () => {
    await h.http.post('/sandbox/faults', { endpoint: 'confirm', fault: 'drop' });
    const before = await balanceMinor(h);
    const err = await post(h, CONFIRM, purchaseBody({ amount: 20, external_reference: 'f-drop' })).catch(
      (e) => e,
    );
    expect((err as { code?: string }).code).toMatch(/ECONNRESET|socket hang up|ERR_BAD_RESPONSE/);
    expect(await balanceMinor(h)).toBe(before - 2_150);
    expect((await post(h, RETRY, retryBody('f-drop'))).data.status).toBe('SUCCESSFUL');
  });

  it('fault internal_error on other endpoints, count N, then back to normal; DELETE clears', async () => {
    const armed = await h.http.post('/sandbox/faults', {
      endpoint: 'vas-products',
      fault: 'internal_error',
      count: 2,
    });
    expect(armed.status).toBe(201);
    expectV1Error(await h.http.get('/public/v1/vas-products', auth(h)), 500, 'internal_error');
    expectV1Error(await h.http.get('/public/v1/vas-products', auth(h)), 500, 'internal_error');
    expect((await h.http.get('/public/v1/vas-products', auth(h))).status).toBe(200);
    await h.http.post('/sandbox/faults', { endpoint: 'accounts', fault: 'provider_unavailable', count: 5 });
    await h.http.delete('/sandbox/faults');
    expect((await h.http.get('/public/v1/accounts', auth(h))).status).toBe(200);
    expectV1Error(
      await h.http.post('/sandbox/faults', { endpoint: 'nowhere', fault: 'drop' }),
      400,
      'invalid_argument',
      'endpoint',
    );
  });

  it('fault slow delays the answer but answers normally', async () => {
    await h.http.post('/sandbox/faults', { endpoint: 'login', fault: 'slow', delayMs: 50 });
    const res = await h.http.post('/public/v1/auth/login', {
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      grant_type: 'password',
      identifier: 'integration',
      secret_pass: 'sandbox-pass',
      org_code: 'SANDBOX',
      source_channel: 'WEB',
    });
    expect(res.status).toBe(200);
  });
});

describe('sandbox: close() ends pending delayed answers', () => {
  it('closes while a scenario 6 confirm is waiting', async () => {
    const h = await harness({ delayMs: 60_000 });
    const inFlight = post(h, CONFIRM, purchaseBody({ subscriber_identifier: TEST_METERS.delayed })).catch(
      (e) => e,
    );
    await eventually(async () => {
      const rows = (await h.http.get('/sandbox/transactions')).data;
      return rows.length > 0 ? rows : undefined;
    });
    await h.sandbox.close();
    const outcome = await inFlight;
    expect(outcome).toBeInstanceOf(Error);
  });
});
