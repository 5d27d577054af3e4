import { MomoAdapter, type MomoSettings } from '../../src/payments/momo/adapter';
import { momoReferenceId } from '../../src/payments/momo/codes';
import {
  PaymentNotPossibleError,
  PaymentTransportError,
  ProviderAuthenticationError,
  ProviderRequestError,
  ProviderUnavailableError,
  outcomeOf,
} from '../../src/payments/errors';
import type { CallbackKind, ProviderNotice } from '../../src/payments/port';
import { ctx, noWait, startReplay, type Answer, type Replay } from './adapters.support';

/** MTN MoMo Collections over real HTTP: request-to-pay, its status and callback, refunds. */

const TOKEN = 'POST /collection/token/';
const DISBURSEMENT_TOKEN = 'POST /disbursement/token/';
const PAY = 'POST /collection/v1_0/requesttopay';
const REF = '15284da8-9169-446b-b1aa-d71080b9e6eb';
const STATUS = `GET /collection/v1_0/requesttopay/${REF}`;
const REFUND = 'POST /disbursement/v1_0/refund';

const SETTINGS: MomoSettings = {
  baseUrl: '',
  apiUser: '0b7a5a51-3c1e-4c52-9a5f-4a2f1f7c1e01',
  apiKey: 'momo-api-key-0001',
  subscriptionKey: 'collection-key-0001',
  targetEnvironment: 'sandbox',
  callbackUrl: 'http://gw.example.com/payments/callback/payment?key=callback-secret-0001',
  refundCallbackUrl: 'http://gw.example.com/payments/callback/refund?key=callback-secret-0001',
  disbursement: { subscriptionKey: 'disbursement-key-0001', apiUser: 'disb-user', apiKey: 'disb-key-0001' },
};
const EUR = (minor: number) => ({ currency: 'EUR', minor });

let replay: Replay;
const adapter = (overrides: Partial<MomoSettings> = {}) =>
  new MomoAdapter({ ...SETTINGS, baseUrl: replay.url, ...overrides }, noWait);

beforeAll(async () => {
  replay = await startReplay();
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.reset();
  replay.script(TOKEN, {
    status: 200,
    body: { access_token: 'momo-collection-token', token_type: 'access_token', expires_in: 3600 },
  });
  replay.script(DISBURSEMENT_TOKEN, {
    status: 200,
    body: { access_token: 'momo-disbursement-token', expires_in: 3600 },
  });
});

describe('X-Reference-Id', () => {
  it('is the reference itself when it is a UUID v4', () => {
    expect(momoReferenceId(REF.toUpperCase())).toBe(REF);
  });
  it('is derived from any other reference: a UUID v4, the same every time, different per reference', () => {
    const id = momoReferenceId('purchase-42');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(momoReferenceId('purchase-42')).toBe(id);
    expect(momoReferenceId('purchase-43')).not.toBe(id);
  });
});

it('asks to pay as MTN documents it: token, then requesttopay with our X-Reference-Id', async () => {
  replay.script(PAY, { status: 202 });
  await expect(
    adapter().collect(
      { reference: REF, payerMsisdn: '46733123450', amount: EUR(500), description: "Pay for product's a" },
      ctx(),
    ),
  ).resolves.toEqual({ accepted: true, providerReference: REF });
  const [token] = replay.requests(TOKEN);
  expect(token.headers.authorization).toBe(
    `Basic ${Buffer.from(`${SETTINGS.apiUser}:momo-api-key-0001`).toString('base64')}`,
  );
  expect(token.headers['ocp-apim-subscription-key']).toBe('collection-key-0001');
  expect(token.rawBody).toBe('');
  const [pay] = replay.requests(PAY);
  expect(pay.headers).toMatchObject({
    authorization: 'Bearer momo-collection-token',
    'x-reference-id': REF,
    'x-target-environment': 'sandbox',
    'ocp-apim-subscription-key': 'collection-key-0001',
    'x-callback-url': SETTINGS.callbackUrl,
  });
  expect(pay.body).toEqual({
    amount: '5.00',
    currency: 'EUR',
    externalId: REF,
    payer: { partyIdType: 'MSISDN', partyId: '46733123450' },
    // MoMo refuses characters such as ' in the notes.
    payerMessage: 'Pay for product s a',
    payeeNote: 'Pay for product s a',
  });
});

type Expected =
  { accepted: true } | { error: new (...args: never[]) => Error; outcome: string; code?: string };
const momoError = (status: number, code: string, message = code): Answer => ({
  status,
  body: { code, message },
});

const collectCases: Array<[string, Answer[], Expected, number]> = [
  ['202 Accepted', [{ status: 202 }], { accepted: true }, 1],
  [
    '409 RESOURCE_ALREADY_EXIST: an earlier attempt landed',
    [momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id')],
    { accepted: true },
    1,
  ],
  [
    '500 then 202: sent again with the SAME reference',
    [{ status: 500, body: { code: 'INTERNAL_PROCESSING_ERROR', message: 'x' } }, { status: 202 }],
    { accepted: true },
    2,
  ],
  [
    'dropped, then 409: the first one had landed',
    [{ drop: true }, momoError(409, 'RESOURCE_ALREADY_EXIST')],
    { accepted: true },
    2,
  ],
  [
    '400 bad reference',
    [momoError(400, 'BAD_REQUEST')],
    { error: ProviderRequestError, outcome: 'rejected' },
    1,
  ],
  [
    '500 INVALID_CURRENCY: refused, nothing created',
    [momoError(500, 'INVALID_CURRENCY')],
    { error: ProviderRequestError, outcome: 'rejected', code: 'INVALID_CURRENCY' },
    1,
  ],
  [
    '500 INVALID_CALLBACK_URL_HOST',
    [momoError(500, 'INVALID_CALLBACK_URL_HOST')],
    { error: ProviderRequestError, outcome: 'rejected' },
    1,
  ],
  [
    '403 NOT_ALLOWED_TARGET_ENVIRONMENT',
    [momoError(403, 'NOT_ALLOWED_TARGET_ENVIRONMENT')],
    { error: ProviderRequestError, outcome: 'rejected' },
    1,
  ],
  [
    '503 every time: unknown after the retries',
    [momoError(503, 'SERVICE_UNAVAILABLE')],
    { error: ProviderUnavailableError, outcome: 'unknown' },
    3,
  ],
  ['dropped every time', [{ drop: true }], { error: PaymentTransportError, outcome: 'unknown' }, 3],
];

test.each(collectCases)('collect: %s', async (_label, answers, expected, posts) => {
  replay.script(PAY, ...answers);
  const outcome = await adapter()
    .collect(
      { reference: 'purchase-7', payerMsisdn: '46733123450', amount: EUR(500), description: 'Airtime' },
      ctx(),
    )
    .then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    );
  const id = momoReferenceId('purchase-7');
  if ('accepted' in expected) expect(outcome).toEqual({ ok: { accepted: true, providerReference: id } });
  else {
    const error = (outcome as { error: { code?: string } }).error;
    expect(error).toBeInstanceOf(expected.error);
    expect(outcomeOf(error)).toBe(expected.outcome);
    if (expected.code) expect(error.code).toBe(expected.code);
  }
  const sent = replay.requests(PAY);
  expect(sent).toHaveLength(posts);
  for (const request of sent) expect(request.headers['x-reference-id']).toBe(id);
});

it('collect: a refused token login sends nothing (not_sent, the login’s error as cause)', async () => {
  replay.script(TOKEN, momoError(401, 'UNAUTHORIZED'));
  const error = await adapter()
    .collect({ reference: REF, payerMsisdn: '46733123450', amount: EUR(500), description: 'x' }, ctx())
    .catch((e: unknown) => e);
  expect(outcomeOf(error)).toBe('not_sent');
  expect((error as Error).cause).toBeInstanceOf(ProviderAuthenticationError);
  expect(replay.requests(PAY)).toHaveLength(0);
  expect(replay.requests(TOKEN)).toHaveLength(1);
});

const statusBody = (fields: object): Answer => ({
  status: 200,
  body: {
    externalId: REF,
    amount: '5',
    currency: 'EUR',
    payer: { partyIdType: 'MSISDN', partyId: '46733123450' },
    payerMessage: 'Pay for product a',
    payeeNote: 'payer note',
    ...fields,
  },
});

const statusCases: Array<[string, Answer, object]> = [
  [
    'SUCCESSFUL',
    statusBody({ status: 'SUCCESSFUL', financialTransactionId: '1232581108' }),
    { state: 'successful', amount: EUR(500), receipt: '1232581108' },
  ],
  ['PENDING', statusBody({ status: 'PENDING' }), { state: 'pending' }],
  ['a status nobody listed: still pending', statusBody({ status: 'ONGOING' }), { state: 'pending' }],
  [
    'FAILED NOT_ENOUGH_FUNDS',
    statusBody({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }),
    { state: 'failed', reason: 'insufficient_funds', detail: 'NOT_ENOUGH_FUNDS' },
  ],
  [
    'FAILED APPROVAL_REJECTED',
    statusBody({ status: 'FAILED', reason: 'APPROVAL_REJECTED' }),
    { state: 'failed', reason: 'declined' },
  ],
  [
    'FAILED EXPIRED',
    statusBody({ status: 'FAILED', reason: 'EXPIRED' }),
    { state: 'failed', reason: 'expired' },
  ],
  [
    'FAILED PAYER_LIMIT_REACHED',
    statusBody({ status: 'FAILED', reason: 'PAYER_LIMIT_REACHED' }),
    { state: 'failed', reason: 'limit_reached' },
  ],
  [
    'FAILED with reason as {code, message}',
    statusBody({ status: 'FAILED', reason: { code: 'PAYER_NOT_FOUND', message: 'x' } }),
    { state: 'failed', reason: 'unreachable' },
  ],
  [
    'FAILED with an unknown reason',
    statusBody({ status: 'FAILED', reason: 'SOMETHING_NEW' }),
    { state: 'failed', reason: 'other' },
  ],
  [
    '404 RESOURCE_NOT_FOUND: the request never landed',
    momoError(404, 'RESOURCE_NOT_FOUND'),
    { state: 'failed', reason: 'not_found' },
  ],
];

test.each(statusCases)('status: %s', async (_label, answer, expected) => {
  replay.script(STATUS, answer);
  await expect(adapter().status({ reference: REF, providerReference: REF }, ctx())).resolves.toMatchObject(
    expected,
  );
  expect(replay.requests(STATUS)[0].headers).toMatchObject({
    'x-target-environment': 'sandbox',
    'ocp-apim-subscription-key': 'collection-key-0001',
  });
});

it('refund: a new X-Reference-Id derived from the refund reference, on the Disbursement product', async () => {
  replay.script(REFUND, { status: 202 });
  const request = {
    reference: REF,
    providerReference: REF,
    receipt: '1232581108',
    payerMsisdn: '46733123450',
    amount: EUR(500),
    refundReference: 'refund-7',
  };
  await expect(adapter().refund(request, ctx())).resolves.toEqual({
    state: 'pending',
    providerReference: momoReferenceId('refund-7'),
  });
  const [refund] = replay.requests(REFUND);
  expect(refund.headers).toMatchObject({
    authorization: 'Bearer momo-disbursement-token',
    'x-reference-id': momoReferenceId('refund-7'),
    'ocp-apim-subscription-key': 'disbursement-key-0001',
    'x-callback-url': SETTINGS.refundCallbackUrl,
  });
  expect(refund.body).toMatchObject({
    amount: '5.00',
    currency: 'EUR',
    externalId: 'refund-7',
    referenceIdToRefund: REF,
  });
  expect(replay.requests(DISBURSEMENT_TOKEN)[0].headers['ocp-apim-subscription-key']).toBe(
    'disbursement-key-0001',
  );
});

it('refund: refused before any call without the Disbursement key', async () => {
  const request = {
    reference: REF,
    providerReference: REF,
    receipt: null,
    payerMsisdn: '4673',
    amount: EUR(500),
    refundReference: 'r',
  };
  await expect(adapter({ disbursement: undefined }).refund(request, ctx())).rejects.toBeInstanceOf(
    PaymentNotPossibleError,
  );
  expect(replay.requests()).toHaveLength(0);
});

test.each([
  [
    'SUCCESSFUL',
    { status: 200, body: { status: 'SUCCESSFUL', amount: '5', currency: 'EUR' } },
    { state: 'successful' },
  ],
  [
    'FAILED',
    { status: 200, body: { status: 'FAILED', reason: 'NOT_ALLOWED' } },
    { state: 'failed', detail: 'NOT_ALLOWED' },
  ],
  ['PENDING', { status: 200, body: { status: 'PENDING' } }, { state: 'pending' }],
  ['404: never landed, nothing returned', momoError(404, 'RESOURCE_NOT_FOUND'), { state: 'failed' }],
] as Array<[string, Answer, object]>)('refund status: %s', async (_label, answer, expected) => {
  const id = momoReferenceId('refund-7');
  replay.script(`GET /disbursement/v1_0/refund/${id}`, answer);
  await expect(
    adapter().refundStatus({ refundReference: 'refund-7', providerReference: null }, ctx()),
  ).resolves.toMatchObject({
    ...expected,
    providerReference: id,
  });
});

const callbackCases: Array<[string, CallbackKind, unknown, ProviderNotice | null]> = [
  [
    'paid',
    'payment',
    {
      financialTransactionId: '1232581108',
      externalId: 'purchase-7',
      amount: '5',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: '46733123450' },
      status: 'SUCCESSFUL',
    },
    {
      type: 'payment',
      reference: 'purchase-7',
      payerMsisdn: '46733123450',
      state: 'successful',
      amount: EUR(500),
      receipt: '1232581108',
    },
  ],
  [
    'failed, no funds',
    'payment',
    {
      externalId: 'purchase-7',
      amount: '500',
      currency: 'UGX',
      status: 'FAILED',
      reason: 'NOT_ENOUGH_FUNDS',
    },
    {
      type: 'payment',
      reference: 'purchase-7',
      state: 'failed',
      reason: 'insufficient_funds',
      detail: 'NOT_ENOUGH_FUNDS',
      amount: { currency: 'UGX', minor: 50_000 },
    },
  ],
  ['no externalId: not ours to read', 'payment', { status: 'SUCCESSFUL' }, null],
  [
    'refund done',
    'refund',
    {
      financialTransactionId: '99',
      externalId: 'refund-7',
      amount: '5.0',
      currency: 'EUR',
      status: 'SUCCESSFUL',
    },
    {
      type: 'refund',
      refundReference: 'refund-7',
      providerReference: momoReferenceId('refund-7'),
      state: 'successful',
      amount: EUR(500),
      receipt: '99',
    },
  ],
];

test.each(callbackCases)('callback: %s', (_label, kind, body, expected) => {
  expect(adapter().parseCallback({ kind, body, headers: {} })).toEqual(expected);
});
