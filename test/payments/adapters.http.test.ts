import {
  HttpProviderAdapter,
  httpSignature,
  type HttpProviderSettings,
} from '../../src/payments/http/adapter';
import {
  CallbackAuthenticationError,
  MalformedAnswerError,
  ProviderAuthenticationError,
  ProviderRequestError,
  ProviderUnavailableError,
  outcomeOf,
} from '../../src/payments/errors';
import { ctx, noWait, startReplay, type Answer, type Replay, type Recorded } from './adapters.support';

/** The generic provider's contract (docs/payments-http-provider.md), played by a test server. */

const SECRET = 'operator-shared-secret-0001';
const NOW = 1_760_000_000_000;
const SETTINGS: HttpProviderSettings = {
  url: '',
  secret: SECRET,
  auth: 'hmac',
  callbackUrl: 'https://gw.example.com/payments/callback/payment?key=callback-secret-0001',
  refundCallbackUrl: 'https://gw.example.com/payments/callback/refund?key=callback-secret-0001',
};
const BWP = (minor: number) => ({ currency: 'BWP', minor });

let replay: Replay;
const adapter = (overrides: Partial<HttpProviderSettings> = {}) =>
  new HttpProviderAdapter(
    { ...SETTINGS, url: `${replay.url}/wallet`, ...overrides },
    { ...noWait, now: () => NOW },
  );

beforeAll(async () => {
  replay = await startReplay();
});
afterAll(() => replay.close());
beforeEach(() => replay.reset());

/** What an operator's server checks first: the signature over the exact body. */
const signedOk = (r: Recorded) =>
  r.headers['x-signature'] === httpSignature(SECRET, Math.floor(NOW / 1000), r.rawBody);

it('collect: signed JSON with the reference, payer, amount and our callback URL', async () => {
  replay.script('POST /wallet/collect', (r) =>
    signedOk(r) ? { status: 202, body: { status: 'pending', providerReference: 'W-1' } } : { status: 401 },
  );
  await expect(
    adapter().collect(
      { reference: 'pay-1', payerMsisdn: '26771234567', amount: BWP(10_150), description: 'Electricity' },
      ctx(),
    ),
  ).resolves.toEqual({ accepted: true, providerReference: 'W-1' });
  expect(replay.requests('POST /wallet/collect')[0].body).toEqual({
    reference: 'pay-1',
    payer: { msisdn: '26771234567' },
    amount: { value: '101.50', currency: 'BWP' },
    description: 'Electricity',
    callbackUrl: SETTINGS.callbackUrl,
  });
});

it('signs as the contract’s example says', () => {
  expect(httpSignature(SECRET, 1_760_000_000, '{"reference":"pay-1","providerReference":"W-1"}')).toBe(
    't=1760000000,v1=8a3409eb8273c56cc70ee8f9c7f7d1c0dba20931ae511c797da336bcbe94612c',
  );
});

it('collect: a 2xx without a body is an acceptance too', async () => {
  replay.script('POST /wallet/collect', { status: 202 });
  await expect(
    adapter().collect(
      { reference: 'pay-9', payerMsisdn: '26771234567', amount: BWP(100), description: 'x' },
      ctx(),
    ),
  ).resolves.toEqual({ accepted: true, providerReference: null });
});

it('bearer mode: Authorization: Bearer <secret>, no signature', async () => {
  replay.script('POST /wallet/status', { status: 200, body: { status: 'pending' } });
  await adapter({ auth: 'bearer' }).status({ reference: 'pay-1', providerReference: null }, ctx());
  const [request] = replay.requests('POST /wallet/status');
  expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
  expect(request.headers['x-signature']).toBeUndefined();
});

type Expected = object | { error: new (...args: never[]) => Error; outcome: string };
const cases: Array<[string, Answer[], Expected, number]> = [
  [
    'paid',
    [
      {
        status: 200,
        body: {
          reference: 'pay-1',
          status: 'successful',
          amount: { value: '101.50', currency: 'BWP' },
          receipt: 'R-9',
        },
      },
    ],
    { state: 'successful', amount: BWP(10_150), receipt: 'R-9' },
    1,
  ],
  [
    'declined',
    [{ status: 200, body: { status: 'failed', reason: 'declined' } }],
    { state: 'failed', reason: 'declined' },
    1,
  ],
  [
    'a reason nobody listed',
    [{ status: 200, body: { status: 'failed', reason: 'moon_phase' } }],
    { state: 'failed', reason: 'other' },
    1,
  ],
  [
    '404 not_found: never landed',
    [{ status: 404, body: { error: { code: 'not_found', message: 'no such payment' } } }],
    { state: 'failed', reason: 'not_found' },
    1,
  ],
  [
    '503 then pending: asked again',
    [{ status: 503 }, { status: 200, body: { status: 'pending' } }],
    { state: 'pending' },
    2,
  ],
  [
    '401 unauthorized',
    [{ status: 401, body: { error: { code: 'unauthorized', message: 'bad signature' } } }],
    { error: ProviderAuthenticationError, outcome: 'rejected' },
    1,
  ],
  [
    'a status word outside the contract',
    [{ status: 200, body: { status: 'done' } }],
    { error: MalformedAnswerError, outcome: 'unknown' },
    1,
  ],
  ['500 every time', [{ status: 500 }], { error: ProviderUnavailableError, outcome: 'unknown' }, 3],
];

test.each(cases)('status: %s', async (_label, answers, expected, calls) => {
  replay.script('POST /wallet/status', ...answers);
  const outcome = await adapter()
    .status({ reference: 'pay-1', providerReference: 'W-1' }, ctx())
    .then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    );
  if ('error' in expected) {
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(expected.error);
    expect(outcomeOf(error)).toBe(expected.outcome);
  } else expect(outcome).toMatchObject({ ok: expected });
  expect(replay.requests('POST /wallet/status')).toHaveLength(calls);
});

it('collect: a refusal (400 invalid_request) is final; a resend after a 5xx carries the same reference', async () => {
  replay.script('POST /wallet/collect', {
    status: 400,
    body: { error: { code: 'invalid_request', message: 'payer unknown' } },
  });
  const request = { reference: 'pay-2', payerMsisdn: '26771234567', amount: BWP(100), description: 'x' };
  await expect(adapter().collect(request, ctx())).rejects.toMatchObject({
    constructor: ProviderRequestError,
    outcome: 'rejected',
  });
  replay.reset();
  replay.script('POST /wallet/collect', { status: 502 }, { status: 202, body: { status: 'pending' } });
  await expect(adapter().collect(request, ctx())).resolves.toEqual({
    accepted: true,
    providerReference: null,
  });
  expect(
    replay.requests('POST /wallet/collect').map((r) => (r.body as { reference: string }).reference),
  ).toEqual(['pay-2', 'pay-2']);
});

it('refund and refund status', async () => {
  replay.script('POST /wallet/refund', {
    status: 202,
    body: { status: 'pending', providerReference: 'WR-1' },
  });
  replay.script('POST /wallet/refund-status', {
    status: 200,
    body: { status: 'successful', providerReference: 'WR-1' },
  });
  const request = {
    reference: 'pay-1',
    providerReference: 'W-1',
    receipt: 'R-9',
    payerMsisdn: '26771234567',
    amount: BWP(10_150),
    refundReference: 'ref-1',
  };
  await expect(adapter().refund(request, ctx())).resolves.toEqual({
    state: 'pending',
    providerReference: 'WR-1',
  });
  expect(replay.requests('POST /wallet/refund')[0].body).toMatchObject({
    refundReference: 'ref-1',
    reference: 'pay-1',
    amount: { value: '101.50', currency: 'BWP' },
    callbackUrl: SETTINGS.refundCallbackUrl,
  });
  await expect(
    adapter().refundStatus({ refundReference: 'ref-1', providerReference: 'WR-1' }, ctx()),
  ).resolves.toEqual({
    state: 'successful',
    providerReference: 'WR-1',
  });
});

describe('callbacks', () => {
  const body = JSON.stringify({
    type: 'payment',
    reference: 'pay-1',
    providerReference: 'W-1',
    status: 'successful',
    amount: { value: '101.50', currency: 'BWP' },
    receipt: 'R-9',
  });
  const signed = (raw: string, at = Math.floor(NOW / 1000)) => ({
    kind: 'payment' as const,
    body: JSON.parse(raw) as unknown,
    rawBody: raw,
    headers: { 'x-signature': httpSignature(SECRET, at, raw) },
  });

  it('a signed payment result', () => {
    expect(adapter().parseCallback(signed(body))).toEqual({
      type: 'payment',
      reference: 'pay-1',
      providerReference: 'W-1',
      state: 'successful',
      amount: BWP(10_150),
      receipt: 'R-9',
    });
  });

  it('a signed refund result', () => {
    const raw = JSON.stringify({
      type: 'refund',
      refundReference: 'ref-1',
      providerReference: 'WR-1',
      status: 'failed',
      detail: 'wallet closed',
    });
    expect(adapter().parseCallback({ ...signed(raw), kind: 'refund' })).toEqual({
      type: 'refund',
      refundReference: 'ref-1',
      providerReference: 'WR-1',
      state: 'failed',
      detail: 'wallet closed',
    });
  });

  test.each([
    ['no signature', { ...signed(body), headers: {} }],
    ['a body changed after signing', { ...signed(body), rawBody: body.replace('101.50', '1.50') }],
    ['a signature older than 5 minutes', signed(body, Math.floor(NOW / 1000) - 301)],
    [
      'another secret',
      {
        ...signed(body),
        headers: { 'x-signature': httpSignature('another-secret-000000', Math.floor(NOW / 1000), body) },
      },
    ],
  ])('refused: %s', (_label, callback) => {
    expect(() => adapter().parseCallback(callback)).toThrow(CallbackAuthenticationError);
  });

  it('bearer mode reads callbacks without a signature (the URL secret guards them)', () => {
    expect(
      adapter({ auth: 'bearer' }).parseCallback({ kind: 'payment', body: JSON.parse(body), headers: {} }),
    ).toMatchObject({ state: 'successful' });
  });

  it('a body of another type is not a result', () => {
    const raw = JSON.stringify({ type: 'ping' });
    expect(adapter().parseCallback(signed(raw))).toBeNull();
  });
});
