/** Sections 2.6, 2.7, 4.1 (auth, catalogue, accounts), 5, 7.1 request ids, 8 limits. */
import axios from 'axios';
import { SANDBOX_READONLY_USER } from '../../src/sandbox';
import {
  auth,
  eventually,
  expectV1Error,
  harness,
  loginBody,
  MONEY,
  purchaseBody,
  type Harness,
} from './helpers';

describe('sandbox: authentication (section 5)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.sandbox.close());

  it('login answers the documented token shape', async () => {
    const res = await h.http.post('/public/v1/auth/login', loginBody());
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      access_token: expect.any(String),
      access_in: 3600,
      token_type: 'bearer',
      refresh_token: expect.any(String),
      scope: 'read write',
    });
  });

  it.each([
    ['client_id', 'nope'],
    ['client_secret', 'nope'],
    ['identifier', 'nobody'],
    ['secret_pass', 'wrong'],
    ['org_code', 'OTHER'],
  ])('a wrong %s gives 401 invalid_credentials', async (field, value) => {
    const res = await h.http.post('/public/v1/auth/login', loginBody({ [field]: value }));
    expectV1Error(res, 401, 'invalid_credentials');
    expect(res.data.error.type).toBe('authentication_error');
  });

  it('a missing login field gives 400 missing_field naming it; a bad grant_type invalid_argument', async () => {
    const body = loginBody();
    delete body.secret_pass;
    expectV1Error(await h.http.post('/public/v1/auth/login', body), 400, 'missing_field', 'secret_pass');
    const grant = await h.http.post('/public/v1/auth/login', loginBody({ grant_type: 'client_credentials' }));
    expectV1Error(grant, 400, 'invalid_argument', 'grant_type');
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'Basic abc'],
    ['unknown', 'Bearer sbx_at_unknown'],
  ])('a %s bearer gives 401 invalid_credentials', async (_label, header) => {
    const res = await h.http.get('/public/v1/auth/me', header ? { headers: { Authorization: header } } : {});
    expectV1Error(res, 401, 'invalid_credentials', null);
  });

  it('auth/me answers actor, role and organisation', async () => {
    const res = await h.http.get('/public/v1/auth/me', auth(h));
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      actor: { id: 701, username: 'integration', full_name: 'Integration User' },
      role: 'API_INTEGRATION',
      organisation: { code: 'SANDBOX', name: 'Sandbox Operator Ltd' },
    });
  });

  it('refresh with {refresh_token} gives a new working access token; unknown refresh is 401', async () => {
    const res = await h.http.post('/public/v1/auth/refresh', { refresh_token: h.refreshToken });
    expect(res.status).toBe(200);
    expect(res.data.token_type).toBe('bearer');
    expect(res.data.access_token).not.toBe(h.token);
    expect((await h.http.get('/public/v1/auth/me', auth(h, res.data.access_token))).status).toBe(200);
    expectV1Error(
      await h.http.post('/public/v1/auth/refresh', { refresh_token: 'nope' }),
      401,
      'invalid_credentials',
    );
    expectV1Error(await h.http.post('/public/v1/auth/refresh', {}), 400, 'missing_field', 'refresh_token');
  });

  it('the read-only user reads but gets 403 missing_permission on purchases', async () => {
    const login = await h.http.post(
      '/public/v1/auth/login',
      loginBody({ identifier: SANDBOX_READONLY_USER.username, secret_pass: SANDBOX_READONLY_USER.password }),
    );
    expect(login.status).toBe(200);
    const ro = { ...h, token: login.data.access_token };
    const accounts = await h.http.get('/public/v1/accounts', auth(ro));
    expect(accounts.data.map((a: { id: number }) => a.id)).toEqual([2001]);
    for (const path of ['validate', 'confirm']) {
      const res = await h.http.post(
        `/public/v1/purchases/${path}`,
        purchaseBody({ debited_account_id: 2001 }),
        auth(ro),
      );
      expectV1Error(res, 403, 'missing_permission');
    }
    const retry = await h.http.post(
      '/public/v1/purchases/retry',
      { subscriber_identifier: '01234567890', external_reference: 'x' },
      auth(ro),
    );
    expectV1Error(retry, 403, 'missing_permission');
  });
});

describe('sandbox: access token expiry', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ accessIn: 1 });
  });
  afterAll(() => h.sandbox.close());

  it('an expired token gives 401, refresh restores access', async () => {
    expect((await h.http.get('/public/v1/auth/me', auth(h))).status).toBe(200);
    const expired = await eventually(async () => {
      const res = await h.http.get('/public/v1/auth/me', auth(h));
      return res.status === 401 ? res : undefined;
    });
    expectV1Error(expired, 401, 'invalid_credentials');
    expect(expired.data.error.message).toMatch(/expired/i);
    const refreshed = await h.http.post('/public/v1/auth/refresh', { refresh_token: h.refreshToken });
    expect(refreshed.data.access_in).toBe(1);
    expect((await h.http.get('/public/v1/auth/me', auth(h, refreshed.data.access_token))).status).toBe(200);
  });
});

describe('sandbox: catalogue and accounts (2.6, 2.7)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.sandbox.close());

  it('lists ELECTRICITY, AIRTIME, WATER with their identifier rules', async () => {
    const res = await h.http.get('/public/v1/vas-products', auth(h));
    expect(res.status).toBe(200);
    expect(res.data.map((p: { product_type: string }) => p.product_type)).toEqual([
      'ELECTRICITY',
      'AIRTIME',
      'WATER',
    ]);
    const [elec, air, water] = res.data;
    expect(elec).toEqual({
      product_type: 'ELECTRICITY',
      display_name: 'Electricity',
      subscriber_id_label: 'Meter number',
      subscriber_id_min_length: 11,
      subscriber_id_max_length: 13,
      subscriber_id_pattern: '^[0-9]{11,13}$',
      subscriber_id_hint: null,
      providers: [{ code: 'BPC', name: 'Botswana Power Corporation' }],
    });
    expect(air.providers.map((p: { code: string }) => p.code)).toEqual(['MASCOM', 'ORANGE', 'BTC']);
    expect(new RegExp(air.subscriber_id_pattern).test('26771234567')).toBe(true);
    expect(air.subscriber_id_hint).toMatch(/26771234567/);
    expect(water.providers).toEqual([{ code: 'WUC', name: 'Water Utilities Corporation' }]);
    expect(new RegExp(water.subscriber_id_pattern).test('2000123456')).toBe(true);
  });

  it('lists the four wallets of the integration user with money-string balances', async () => {
    const res = await h.http.get('/public/v1/accounts', auth(h));
    expect(res.status).toBe(200);
    expect(res.data.map((a: { id: number; category: string }) => [a.id, a.category])).toEqual([
      [1001, 'CURRENT'],
      [1002, 'COMMISSION'],
      [1003, 'TOPUP'],
      [1004, 'CURRENT'],
    ]);
    for (const account of res.data) {
      expect(account).toMatchObject({ currency: 'BWP', type: 'WALLET', status: 'ACTIVE' });
      expect(account.balance).toMatch(MONEY);
    }
    expect(res.data[0]).toEqual({
      id: 1001,
      name: 'Main wallet',
      currency: 'BWP',
      category: 'CURRENT',
      type: 'WALLET',
      status: 'ACTIVE',
      rank: 1,
      balance: 'BWP 1000000.00',
    });
  });

  it('GET /accounts/{id}: own account, another user’s or unknown → 404 resource_not_found', async () => {
    expect((await h.http.get('/public/v1/accounts/1003', auth(h))).data.balance).toBe('BWP 500.00');
    expectV1Error(await h.http.get('/public/v1/accounts/2001', auth(h)), 404, 'resource_not_found');
    expectV1Error(await h.http.get('/public/v1/accounts/9999', auth(h)), 404, 'resource_not_found');
    expectV1Error(await h.http.get('/public/v1/accounts/abc', auth(h)), 404, 'resource_not_found');
  });
});

describe('sandbox: envelopes, request ids, routing (7.1, 8.1)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.sandbox.close());

  it('generates an X-Request-Id on every response, success or error', async () => {
    const ok = await h.http.get('/public/v1/vas-products', auth(h));
    expect(ok.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(ok.data).not.toHaveProperty('error');
    const bad = await h.http.get('/public/v1/vas-products');
    expect(bad.data.error.request_id).toBe(bad.headers['x-request-id']);
  });

  it('echoes a caller X-Request-Id of up to 128 characters; longer is 400 invalid_argument', async () => {
    const id = 'r'.repeat(128);
    const res = await h.http.get('/public/v1/vas-products', {
      headers: { ...auth(h).headers, 'X-Request-Id': id },
    });
    expect(res.headers['x-request-id']).toBe(id);
    const long = await h.http.get('/public/v1/vas-products', {
      headers: { ...auth(h).headers, 'X-Request-Id': 'r'.repeat(129) },
    });
    expectV1Error(long, 400, 'invalid_argument', 'X-Request-Id');
    expect(long.headers['x-request-id']).toMatch(/^req_/);
  });

  it('unknown path → 404 resource_not_found; wrong method → 400 method_not_allowed', async () => {
    expectV1Error(await h.http.get('/public/v1/nothing', auth(h)), 404, 'resource_not_found');
    const res = await h.http.get('/public/v1/purchases/confirm', auth(h));
    expectV1Error(res, 400, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST');
    expectV1Error(await h.http.delete('/public/v1/accounts', auth(h)), 400, 'method_not_allowed');
  });

  it('doc_url deep-links the code', async () => {
    const res = await h.http.get('/public/v1/auth/me');
    expect(res.data.error.doc_url).toBe(`${h.sandbox.url}/sandbox/errors#invalid_credentials`);
    const errors = await h.http.get('/sandbox/errors');
    expect(errors.data).toContainEqual({
      code: 'invalid_credentials',
      type: 'authentication_error',
      retryable: false,
    });
  });

  it('malformed JSON → 400 invalid_argument', async () => {
    const res = await axios.post(`${h.sandbox.url}/public/v1/purchases/validate`, '{bad', {
      headers: { ...auth(h).headers, 'Content-Type': 'application/json' },
      validateStatus: () => true,
      transformRequest: (d: unknown) => d,
    });
    expectV1Error(res, 400, 'invalid_argument', null);
  });
});

describe('sandbox: rate limit (8.5)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ rateLimit: { limit: 3, windowMs: 60_000 } });
  });
  afterAll(() => h.sandbox.close());

  it('answers 429 rate_limit_error with Retry-After once the per-token budget is spent', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await h.http.get('/public/v1/vas-products', auth(h))).status).toBe(200);
    const res = await h.http.get('/public/v1/vas-products', auth(h));
    expectV1Error(res, 429, 'rate_limited');
    expect(res.data.error).toMatchObject({ type: 'rate_limit_error', retryable: true });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    // another token has its own budget (login counts per IP: this is its 2nd call)
    const other = await h.http.post('/public/v1/auth/login', loginBody());
    expect((await h.http.get('/public/v1/vas-products', auth(h, other.data.access_token))).status).toBe(200);
  });
});
