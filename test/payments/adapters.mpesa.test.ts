import {
  MpesaAdapter,
  darajaPassword,
  darajaTimestamp,
  type MpesaSettings,
} from '../../src/payments/mpesa/adapter';
import {
  MalformedAnswerError,
  PaymentNotPossibleError,
  PaymentTokenError,
  PaymentTransportError,
  ProviderRateLimitError,
  ProviderRequestError,
  ProviderUnavailableError,
  SubscriberBusyError,
  outcomeOf,
} from '../../src/payments/errors';
import type { CallbackKind, ProviderNotice } from '../../src/payments/port';
import { closedUrl, ctx, noWait, startReplay, type Answer, type Replay } from './adapters.support';

/** Daraja over real HTTP: wire cases for the push, the query, the reversal and the callbacks. */

const PUSH = 'POST /mpesa/stkpush/v1/processrequest';
const QUERY = 'POST /mpesa/stkpushquery/v1/query';
const REVERSAL = 'POST /mpesa/reversal/v1/request';
const TOKEN = 'GET /oauth/v1/generate';

// 2021-06-28 06:24:08 UTC = 09:24:08 in Nairobi (EAT, UTC+3): the reference's example timestamp.
const NOW = Date.UTC(2021, 5, 28, 6, 24, 8);

const SETTINGS: MpesaSettings = {
  baseUrl: '',
  consumerKey: 'consumer-key-0001',
  consumerSecret: 'consumer-secret-0001',
  shortcode: '174379',
  passkey: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
  transactionType: 'CustomerPayBillOnline',
  partyB: '174379',
  callbackUrl: 'https://gw.example.com/payments/callback/payment?key=callback-secret-0001',
  refundResultUrl: 'https://gw.example.com/payments/callback/refund?key=callback-secret-0001',
  refundTimeoutUrl: 'https://gw.example.com/payments/callback/refund-timeout?key=callback-secret-0001',
  initiator: 'apiop37',
  securityCredential: 'encrypted-credential-0001',
  currency: 'KES',
  amountDecimals: 0,
};

const KES = (minor: number) => ({ currency: 'KES', minor });
const collectRequest = {
  reference: 'pay-1',
  payerMsisdn: '254708374149',
  amount: KES(10_000),
  description: 'Electricity token',
};

let replay: Replay;
let now = NOW;
const adapter = (overrides: Partial<MpesaSettings> = {}) =>
  new MpesaAdapter({ ...SETTINGS, baseUrl: replay.url, ...overrides }, { ...noWait, now: () => now });

beforeAll(async () => {
  replay = await startReplay();
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.reset();
  now = NOW;
  replay.script(TOKEN, {
    status: 200,
    body: { access_token: 'c9SQxWWhmdVRlyh0zh8gZDTkubVF', expires_in: '3599' },
  });
});

const accepted: Answer = {
  status: 200,
  body: {
    MerchantRequestID: '2654-4b64-97ff-b827b542881d3130',
    CheckoutRequestID: 'ws_CO_1007202409152617172396192',
    ResponseCode: '0',
    ResponseDescription: 'Success. Request accepted for processing',
    CustomerMessage: 'Success. Request accepted for processing',
  },
};
const darajaError = (status: number, errorCode: string, errorMessage: string): Answer => ({
  status,
  body: { requestId: '11728-2929992-1', errorCode, errorMessage },
});

it('pushes the STK prompt as Daraja documents it: Password = base64(Shortcode+Passkey+Timestamp) in EAT', async () => {
  replay.script(PUSH, accepted);
  await adapter().collect(collectRequest, ctx());
  const [push] = replay.requests(PUSH);
  expect(push.headers.authorization).toBe('Bearer c9SQxWWhmdVRlyh0zh8gZDTkubVF');
  expect(push.headers['content-type']).toBe('application/json');
  expect(push.body).toEqual({
    BusinessShortCode: '174379',
    Password: darajaPassword('174379', SETTINGS.passkey, '20210628092408'),
    Timestamp: '20210628092408',
    TransactionType: 'CustomerPayBillOnline',
    Amount: '100',
    PartyA: '254708374149',
    PartyB: '174379',
    PhoneNumber: '254708374149',
    CallBackURL: SETTINGS.callbackUrl,
    AccountReference: 'Electricity',
    TransactionDesc: 'Electricity t',
  });
  // The reference's own sample password for this shortcode, passkey and timestamp.
  expect((push.body as { Password: string }).Password).toBe(
    'MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjEwNjI4MDkyNDA4',
  );
  const [token] = replay.requests(TOKEN);
  expect(token.query).toBe('grant_type=client_credentials');
  expect(token.headers.authorization).toBe(
    `Basic ${Buffer.from('consumer-key-0001:consumer-secret-0001').toString('base64')}`,
  );
});

it('writes the timestamp in East Africa Time whatever the clock', () => {
  expect(darajaTimestamp(Date.UTC(2024, 11, 31, 22, 59, 59))).toBe('20250101015959');
});

type Expected =
  { accepted: string } | { error: new (...args: never[]) => Error; outcome: string; code?: string };

const collectCases: Array<[string, Answer[], Expected, number]> = [
  ['accepted (ResponseCode "0")', [accepted], { accepted: 'ws_CO_1007202409152617172396192' }, 1],
  [
    'invalid field 400.002.02',
    [darajaError(400, '400.002.02', 'Bad Request - Invalid BusinessShortCode')],
    { error: ProviderRequestError, outcome: 'rejected', code: '400.002.02' },
    1,
  ],
  [
    'subscriber locked 500.001.1001',
    [
      darajaError(
        500,
        '500.001.1001',
        'Unable to lock subscriber, a transaction is already in process for the current subscriber',
      ),
    ],
    { error: SubscriberBusyError, outcome: 'rejected', code: '500.001.1001' },
    1,
  ],
  [
    'wrong credentials 500.001.1001',
    [darajaError(500, '500.001.1001', 'Wrong credentials')],
    { error: ProviderRequestError, outcome: 'rejected' },
    1,
  ],
  [
    'spike arrest 500.003.02: unknown, never pushed again',
    [darajaError(500, '500.003.02', 'System is busy. Please try again in few minutes.')],
    { error: ProviderRateLimitError, outcome: 'unknown' },
    1,
  ],
  [
    'internal 500.003.1001: unknown, never pushed again',
    [darajaError(500, '500.003.1001', 'Internal Server Error')],
    { error: ProviderUnavailableError, outcome: 'unknown' },
    1,
  ],
  [
    '503 without body: unknown',
    [{ status: 503 }],
    { error: ProviderUnavailableError, outcome: 'unknown' },
    1,
  ],
  [
    'ResponseCode other than "0": not accepted',
    [{ status: 200, body: { ResponseCode: '1', ResponseDescription: 'Rejected' } }],
    { error: ProviderRequestError, outcome: 'rejected', code: 'response_1' },
    1,
  ],
  [
    '200 without CheckoutRequestID: unknown',
    [{ status: 200, body: { ResponseCode: '0' } }],
    { error: MalformedAnswerError, outcome: 'unknown' },
    1,
  ],
  [
    'connection dropped after the push arrived: unknown, never pushed again',
    [{ drop: true }],
    { error: PaymentTransportError, outcome: 'unknown' },
    1,
  ],
  [
    'token refused (404.001.03): a fresh token, pushed once more (nothing was done)',
    [darajaError(404, '404.001.03', 'Invalid Access Token'), accepted],
    { accepted: 'ws_CO_1007202409152617172396192' },
    2,
  ],
];

test.each(collectCases)('collect: %s', async (_label, answers, expected, pushes) => {
  replay.script(PUSH, ...answers);
  const result = adapter()
    .collect(collectRequest, ctx())
    .then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    );
  const outcome = await result;
  if ('accepted' in expected) {
    expect(outcome).toEqual({ ok: { accepted: true, providerReference: expected.accepted } });
  } else {
    expect('error' in outcome && outcome.error).toBeInstanceOf(expected.error);
    const error = (outcome as { error: { code?: string } }).error;
    expect(outcomeOf(error)).toBe(expected.outcome);
    if (expected.code) expect(error.code).toBe(expected.code);
  }
  expect(replay.requests(PUSH)).toHaveLength(pushes);
});

test.each([
  ['cents (Daraja takes whole shillings)', { currency: 'KES', minor: 10_050 }, 'amount_not_whole'],
  ['another currency', { currency: 'BWP', minor: 10_000 }, 'currency_not_supported'],
])('collect refuses %s before any call', async (_label, amount, code) => {
  await expect(adapter().collect({ ...collectRequest, amount }, ctx())).rejects.toMatchObject({
    constructor: PaymentNotPossibleError,
    code,
    outcome: 'rejected',
  });
  expect(replay.requests()).toHaveLength(0);
});

it('sends cents when the double it talks to takes them (amountDecimals 2)', async () => {
  replay.script(PUSH, accepted);
  await adapter({ amountDecimals: 2 }).collect({ ...collectRequest, amount: KES(10_150) }, ctx());
  expect(replay.requests(PUSH)[0].body).toMatchObject({ Amount: '101.50' });
});

it('a provider that cannot be reached: the token was never had, the push never sent', async () => {
  const dead = new MpesaAdapter({ ...SETTINGS, baseUrl: await closedUrl() }, { ...noWait, now: () => now });
  const error = await dead.collect(collectRequest, ctx()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PaymentTokenError);
  expect(outcomeOf(error)).toBe('not_sent');
});

it('keeps one token until a minute before it expires, then fetches another', async () => {
  replay.script(QUERY, { status: 200, body: { ResponseCode: '0', ResultCode: '0', ResultDesc: 'ok' } });
  const mpesa = adapter();
  const query = { reference: 'pay-1', providerReference: 'ws_CO_1' };
  await Promise.all([mpesa.status(query, ctx()), mpesa.status(query, ctx())]);
  await mpesa.status(query, ctx());
  expect(replay.requests(TOKEN)).toHaveLength(1);
  now += 3599_000 - 60_000;
  await mpesa.status(query, ctx());
  expect(replay.requests(TOKEN)).toHaveLength(2);
});

const queryResult = (ResultCode: string, ResultDesc: string): Answer => ({
  status: 200,
  body: {
    ResponseCode: '0',
    ResponseDescription: 'The service request has been accepted successfully',
    MerchantRequestID: '22205-34066-1',
    CheckoutRequestID: 'ws_CO_13012021093521236557',
    ResultCode,
    ResultDesc,
  },
});

const statusCases: Array<[string, Answer[], object, number]> = [
  [
    'paid (string "0")',
    [queryResult('0', 'The service request is processed successfully.')],
    { state: 'successful' },
    1,
  ],
  [
    'cancelled 1032',
    [queryResult('1032', 'Request cancelled by user')],
    { state: 'failed', reason: 'declined' },
    1,
  ],
  [
    'no funds 1',
    [queryResult('1', 'The balance is insufficient for the transaction.')],
    { state: 'failed', reason: 'insufficient_funds' },
    1,
  ],
  [
    'wrong PIN 2001',
    [queryResult('2001', 'The initiator information is invalid.')],
    { state: 'failed', reason: 'wrong_pin' },
    1,
  ],
  [
    'expired 1019',
    [queryResult('1019', 'Transaction has expired.')],
    { state: 'failed', reason: 'expired' },
    1,
  ],
  [
    'phone unreachable 1037',
    [queryResult('1037', 'DS timeout user cannot be reached')],
    { state: 'failed', reason: 'unreachable' },
    1,
  ],
  [
    'locked credential 8006',
    [queryResult('8006', 'The security credential is locked')],
    { state: 'failed', reason: 'account_blocked' },
    1,
  ],
  [
    'same amount within 2 minutes 17',
    [queryResult('17', 'Rule limited.')],
    { state: 'failed', reason: 'limit_reached' },
    1,
  ],
  [
    'a code nobody listed: final, not paid',
    [queryResult('4242', 'Something new')],
    { state: 'failed', reason: 'other', detail: '4242 Something new' },
    1,
  ],
  [
    '"being processed" 500.001.1001: pending, not failed',
    [darajaError(500, '500.001.1001', 'The transaction is being processed')],
    { state: 'pending' },
    1,
  ],
  [
    'spike arrest then the answer: the query (a read) is asked again',
    [darajaError(500, '500.003.02', 'Spike arrest violation'), queryResult('0', 'ok')],
    { state: 'successful' },
    2,
  ],
];

test.each(statusCases)('status: %s', async (_label, answers, expected, queries) => {
  replay.script(QUERY, ...answers);
  await expect(
    adapter().status({ reference: 'pay-1', providerReference: 'ws_CO_13012021093521236557' }, ctx()),
  ).resolves.toMatchObject(expected);
  expect(replay.requests(QUERY)).toHaveLength(queries);
  expect(replay.requests(QUERY)[0].body).toEqual({
    BusinessShortCode: '174379',
    Password: darajaPassword('174379', SETTINGS.passkey, '20210628092408'),
    Timestamp: '20210628092408',
    CheckoutRequestID: 'ws_CO_13012021093521236557',
  });
});

it('status: a provider failing every time ends unknown after the retries', async () => {
  replay.script(QUERY, { status: 503 });
  const error = await adapter()
    .status({ reference: 'p', providerReference: 'ws_CO_1' }, ctx())
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  expect(outcomeOf(error)).toBe('unknown');
  expect(replay.requests(QUERY)).toHaveLength(3);
});

it('status: a push without CheckoutRequestID cannot be queried (no call)', async () => {
  await expect(adapter().status({ reference: 'p', providerReference: null }, ctx())).rejects.toBeInstanceOf(
    PaymentNotPossibleError,
  );
  expect(replay.requests()).toHaveLength(0);
});

const refundRequest = {
  reference: 'pay-1',
  providerReference: 'ws_CO_1',
  receipt: 'NLJ7RT61SV',
  payerMsisdn: '254708374149',
  amount: KES(10_000),
  refundReference: 'refund-1',
};

it('refund: a reversal of the receipt, answered pending with its OriginatorConversationID', async () => {
  replay.script(REVERSAL, {
    status: 200,
    body: {
      OriginatorConversationID: '71840-27539181-07',
      ConversationID: 'AG_20210706_20106e9209f64bebd05b',
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    },
  });
  await expect(adapter().refund(refundRequest, ctx())).resolves.toEqual({
    state: 'pending',
    providerReference: '71840-27539181-07',
  });
  expect(replay.requests(REVERSAL)[0].body).toEqual({
    Initiator: 'apiop37',
    SecurityCredential: 'encrypted-credential-0001',
    CommandID: 'TransactionReversal',
    TransactionID: 'NLJ7RT61SV',
    Amount: '100',
    ReceiverParty: '174379',
    RecieverIdentifierType: '11',
    ResultURL: SETTINGS.refundResultUrl,
    QueueTimeOutURL: SETTINGS.refundTimeoutUrl,
    Remarks: 'Payment reversal',
    Occasion: 'refund 1',
  });
});

test.each([
  ['without a receipt', { receipt: null }, {}, 'no_receipt'],
  ['without an initiator', {}, { initiator: undefined }, 'no_initiator'],
])('refund: refused %s before any call', async (_label, request, settings, code) => {
  await expect(adapter(settings).refund({ ...refundRequest, ...request }, ctx())).rejects.toMatchObject({
    code,
    outcome: 'rejected',
  });
  expect(replay.requests()).toHaveLength(0);
});

it('refund: a lost answer is unknown and the reversal is never sent again', async () => {
  replay.script(REVERSAL, { status: 502 });
  const error = await adapter()
    .refund(refundRequest, ctx())
    .catch((e: unknown) => e);
  expect(outcomeOf(error)).toBe('unknown');
  expect(replay.requests(REVERSAL)).toHaveLength(1);
});

const stk = (fields: object) => ({
  Body: {
    stkCallback: {
      MerchantRequestID: '29115-34620561-1',
      CheckoutRequestID: 'ws_CO_191220191020363925',
      ...fields,
    },
  },
});
const reversal = (fields: object) => ({
  Result: {
    ResultType: 0,
    OriginatorConversationID: '71840-27539181-07',
    ConversationID: 'AG_20211114_201018edbbf9f1582eaa',
    TransactionID: 'SKE52PAWR9',
    ...fields,
  },
});

const callbackCases: Array<[string, CallbackKind, unknown, ProviderNotice | null]> = [
  [
    'paid: items read by Name (a Balance without Value among them, order shuffled)',
    'payment',
    stk({
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      CallbackMetadata: {
        Item: [
          { Name: 'PhoneNumber', Value: 254708374149 },
          { Name: 'Balance' },
          { Name: 'MpesaReceiptNumber', Value: 'NLJ7RT61SV' },
          { Name: 'TransactionDate', Value: 20191219102115 },
          { Name: 'Amount', Value: 1.0 },
        ],
      },
    }),
    {
      type: 'payment',
      providerReference: 'ws_CO_191220191020363925',
      state: 'successful',
      amount: KES(100),
      receipt: 'NLJ7RT61SV',
      payerMsisdn: '254708374149',
    },
  ],
  [
    'paid with cents on a double that takes them',
    'payment',
    stk({ ResultCode: '0', CallbackMetadata: { Item: [{ Name: 'Amount', Value: 101.5 }] } }),
    {
      type: 'payment',
      providerReference: 'ws_CO_191220191020363925',
      state: 'successful',
      amount: KES(10_150),
    },
  ],
  [
    'cancelled by the payer 1032',
    'payment',
    stk({ ResultCode: 1032, ResultDesc: 'Request cancelled by user' }),
    {
      type: 'payment',
      providerReference: 'ws_CO_191220191020363925',
      state: 'failed',
      reason: 'declined',
      detail: '1032 Request cancelled by user',
    },
  ],
  ['no CheckoutRequestID: not a result', 'payment', { Body: { stkCallback: { ResultCode: 0 } } }, null],
  ['not a Daraja body', 'payment', { hello: 'world' }, null],
  [
    'reversal done (0)',
    'refund',
    reversal({
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultParameters: {
        ResultParameter: [
          { Key: 'Charge', Value: 0.0 },
          { Key: 'Amount', Value: 100.0 },
        ],
      },
    }),
    {
      type: 'refund',
      state: 'successful',
      providerReference: '71840-27539181-07',
      amount: KES(10_000),
      receipt: 'SKE52PAWR9',
    },
  ],
  [
    'reversed before (R000001): the money is back',
    'refund',
    reversal({ ResultCode: 'R000001', ResultDesc: 'The transaction has already been reversed' }),
    {
      type: 'refund',
      state: 'successful',
      providerReference: '71840-27539181-07',
      alreadyRefunded: true,
      receipt: 'SKE52PAWR9',
    },
  ],
  [
    'original not found (R000002): not refunded',
    'refund',
    reversal({ ResultCode: 'R000002', ResultDesc: 'The OriginalTransactionID is invalid.' }),
    {
      type: 'refund',
      state: 'failed',
      providerReference: '71840-27539181-07',
      detail: 'R000002 The OriginalTransactionID is invalid.',
      receipt: 'SKE52PAWR9',
    },
  ],
  [
    'queue timeout: not a failure, still pending',
    'refund_timeout',
    reversal({ ResultCode: 1, ResultDesc: 'queue timeout' }),
    { type: 'refund', state: 'pending', providerReference: '71840-27539181-07', detail: 'queue timeout' },
  ],
];

test.each(callbackCases)('callback: %s', (_label, kind, body, expected) => {
  expect(adapter().parseCallback({ kind, body, headers: {} })).toEqual(expected);
});
