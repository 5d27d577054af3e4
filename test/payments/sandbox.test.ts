/**
 * The payment sandbox over real HTTP: each test payer's behaviour over Daraja and over MoMo,
 * callbacks received by a real HTTP server, the ledger, refunds and faults.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DARAJA_DEFAULTS,
  MOMO_DEFAULTS,
  startPaymentSandbox,
  type RunningPaymentSandbox,
} from '../../src/payments/sandbox';
import { until } from '../support/wait';

interface Received {
  method: string;
  path: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A small HTTP server that records every callback it receives and answers 200. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : null });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function darajaPassword(timestamp: string): string {
  return Buffer.from(DARAJA_DEFAULTS.shortcode + DARAJA_DEFAULTS.passkey + timestamp).toString('base64');
}

class DarajaClient {
  token = '';
  constructor(readonly base: string) {}

  async authenticate(): Promise<Answer> {
    const answer = await call(`${this.base}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { Authorization: basic(DARAJA_DEFAULTS.consumerKey, DARAJA_DEFAULTS.consumerSecret) },
    });
    this.token = answer.body?.access_token ?? '';
    return answer;
  }

  post(path: string, body: object): Promise<Answer> {
    return call(`${this.base}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  push(phone: string, amount: number | string, callbackUrl: string, extra: object = {}): Promise<Answer> {
    const timestamp = '20240628092408';
    return this.post('/mpesa/stkpush/v1/processrequest', {
      BusinessShortCode: 174379,
      Password: darajaPassword(timestamp),
      Timestamp: timestamp,
      TransactionType: 'CustomerPayBillOnline',
      Amount: amount,
      PartyA: phone,
      PartyB: '174379',
      PhoneNumber: phone,
      CallBackURL: callbackUrl,
      AccountReference: 'PWR-1234',
      TransactionDesc: 'Electricity',
      ...extra,
    });
  }

  query(checkoutRequestId: string): Promise<Answer> {
    const timestamp = '20240628092410';
    return this.post('/mpesa/stkpushquery/v1/query', {
      BusinessShortCode: '174379',
      Password: darajaPassword(timestamp),
      Timestamp: timestamp,
      CheckoutRequestID: checkoutRequestId,
    });
  }

  reverse(receipt: string, amount: number | string, resultUrl: string): Promise<Answer> {
    return this.post('/mpesa/reversal/v1/request', {
      Initiator: 'apiop37',
      SecurityCredential: 'c2VjcmV0',
      CommandID: 'TransactionReversal',
      TransactionID: receipt,
      Amount: String(amount),
      ReceiverParty: '174379',
      RecieverIdentifierType: '11',
      ResultURL: resultUrl,
      QueueTimeOutURL: `${resultUrl}/queue`,
      Remarks: 'Payment reversal',
    });
  }
}

class MomoClient {
  token = '';
  constructor(readonly base: string) {}

  async authenticate(product: 'collection' | 'disbursement' = 'collection'): Promise<Answer> {
    const key = product === 'collection' ? MOMO_DEFAULTS.collectionKey : MOMO_DEFAULTS.disbursementKey;
    const answer = await call(`${this.base}/${product}/token/`, {
      method: 'POST',
      headers: {
        Authorization: basic(MOMO_DEFAULTS.apiUserId, MOMO_DEFAULTS.apiKey),
        'Ocp-Apim-Subscription-Key': key,
      },
    });
    this.token = answer.body?.access_token ?? '';
    return answer;
  }

  private headers(key: string, reference?: string, callbackUrl?: string): Record<string, string> {
    return {
      Authorization: `Bearer ${this.token}`,
      'Ocp-Apim-Subscription-Key': key,
      'X-Target-Environment': MOMO_DEFAULTS.targetEnvironment,
      'Content-Type': 'application/json',
      ...(reference ? { 'X-Reference-Id': reference } : {}),
      ...(callbackUrl ? { 'X-Callback-Url': callbackUrl } : {}),
    };
  }

  requestToPay(
    msisdn: string,
    amount: string,
    currency: string,
    callbackUrl?: string,
    reference: string = randomUUID(),
  ): Promise<Answer & { reference: string }> {
    return call(`${this.base}/collection/v1_0/requesttopay`, {
      method: 'POST',
      headers: this.headers(MOMO_DEFAULTS.collectionKey, reference, callbackUrl),
      body: JSON.stringify({
        amount,
        currency,
        externalId: 'purchase-1',
        payer: { partyIdType: 'MSISDN', partyId: msisdn },
        payerMessage: 'Electricity',
        payeeNote: 'Power vendor',
      }),
    }).then((a) => ({ ...a, reference }));
  }

  status(reference: string): Promise<Answer> {
    return call(`${this.base}/collection/v1_0/requesttopay/${reference}`, {
      headers: this.headers(MOMO_DEFAULTS.collectionKey),
    });
  }

  refund(
    referenceIdToRefund: string,
    amount: string,
    currency: string,
    callbackUrl?: string,
    reference: string = randomUUID(),
  ): Promise<Answer & { reference: string }> {
    return call(`${this.base}/disbursement/v1_0/refund`, {
      method: 'POST',
      headers: this.headers(MOMO_DEFAULTS.disbursementKey, reference, callbackUrl),
      body: JSON.stringify({
        amount,
        currency,
        externalId: 'refund-1',
        payerMessage: 'Refund',
        payeeNote: 'Refund',
        referenceIdToRefund,
      }),
    }).then((a) => ({ ...a, reference }));
  }

  refundStatus(reference: string): Promise<Answer> {
    return call(`${this.base}/disbursement/v1_0/refund/${reference}`, {
      headers: this.headers(MOMO_DEFAULTS.disbursementKey),
    });
  }
}
let sandbox: RunningPaymentSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let daraja: DarajaClient;
let momo: MomoClient;

beforeEach(async () => {
  sandbox = await startPaymentSandbox({
    silent: true,
    approveDelayMs: 20,
    lateSuccessDelayMs: 600,
    promptExpiryMs: 300,
    refundDelayMs: 20,
  });
  receiver = await startReceiver();
  daraja = new DarajaClient(sandbox.url);
  momo = new MomoClient(sandbox.url);
  await daraja.authenticate();
  await momo.authenticate();
});

afterEach(async () => {
  await sandbox.close();
  await receiver.close();
});

const callbacksTo = (path: string): Received[] => receiver.received.filter((r) => r.path === path);
/** Waits until `path` received at least `n` callbacks; resolves to all of them. */
const received = (path: string, n = 1): Promise<Received[]> =>
  until(`${n} callback(s) to ${path}`, () => (callbacksTo(path).length >= n ? callbacksTo(path) : null));
const ledgerRow = async (id: string) =>
  (await call(`${sandbox.url}/sandbox/payments`)).body.payments.find((p: { id: string }) => p.id === id);

describe('Daraja', () => {
  it('approves an unlisted number: accepted, callback with metadata, query says paid', async () => {
    const push = await daraja.push('254708374149', 101, `${receiver.url}/mpesa/cb`);
    expect(push.status).toBe(200);
    expect(push.body).toEqual({
      MerchantRequestID: expect.any(String),
      CheckoutRequestID: expect.stringMatching(/^ws_CO_\d+$/),
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
    const [cb] = await received('/mpesa/cb');
    expect(cb.method).toBe('POST');
    const stk = cb.body.Body.stkCallback;
    expect(stk).toMatchObject({
      MerchantRequestID: push.body.MerchantRequestID,
      CheckoutRequestID: push.body.CheckoutRequestID,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
    });
    const items = Object.fromEntries(
      stk.CallbackMetadata.Item.map((i: { Name: string; Value: unknown }) => [i.Name, i.Value]),
    );
    expect(items).toEqual({
      Amount: 101,
      MpesaReceiptNumber: expect.stringMatching(/^[A-Z][A-Z0-9]{9}$/),
      TransactionDate: expect.any(Number),
      PhoneNumber: 254708374149,
    });
    const query = await daraja.query(push.body.CheckoutRequestID);
    expect(query).toEqual({
      status: 200,
      body: {
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successfully',
        MerchantRequestID: push.body.MerchantRequestID,
        CheckoutRequestID: push.body.CheckoutRequestID,
        ResultCode: '0',
        ResultDesc: 'The service request is processed successfully.',
      },
    });
    expect(await ledgerRow(push.body.CheckoutRequestID)).toMatchObject({
      msisdn: '254708374149',
      amount: 'KES 101.00',
      currency: 'KES',
      status: 'successful',
      refundedAmount: 'KES 0.00',
    });
  });
});

describe('MoMo', () => {
  it('approves an unlisted number: 202, PUT callback, status SUCCESSFUL', async () => {
    const rtp = await momo.requestToPay('26771234567', '101.50', 'BWP', `${receiver.url}/momo/cb`);
    expect(rtp.status).toBe(202);
    expect(rtp.body).toBeNull();
    const [cb] = await received('/momo/cb');
    expect(cb.method).toBe('PUT');
    const expected = {
      financialTransactionId: expect.stringMatching(/^\d{10}$/),
      externalId: 'purchase-1',
      amount: '101.5',
      currency: 'BWP',
      payer: { partyIdType: 'MSISDN', partyId: '26771234567' },
      payerMessage: 'Electricity',
      payeeNote: 'Power vendor',
      status: 'SUCCESSFUL',
    };
    expect(cb.body).toEqual(expected);
    expect(await momo.status(rtp.reference)).toEqual({ status: 200, body: expected });
    expect(await ledgerRow(rtp.reference)).toMatchObject({ amount: 'BWP 101.50', status: 'successful' });
  });
});

/** The callbacks a sandbox sent to `path` so far, once a later marker callback has arrived. */
async function callbacksSettled(path: string): Promise<Received[]> {
  // Any callback of an earlier ended payment starts before the marker's: once the marker's has
  // arrived, a callback that has not is one that was never sent.
  const marker = `/marker-${receiver.received.length}`;
  await momo.requestToPay('26775900001', '1', 'BWP', `${receiver.url}${marker}`);
  await received(marker);
  return callbacksTo(path);
}

const settled = (id: string) =>
  until(`payment ${id} ended`, async () => {
    const row = await ledgerRow(id);
    return row && row.status !== 'pending' ? row : null;
  });

interface BehaviourCase {
  behaviour: string;
  msisdn: string;
  callbacks: number;
  daraja: { code: number; desc: string };
  momo: { status: string; reason?: string };
  ledger: 'successful' | 'failed';
  /** Still pending right after the request (the others may already have ended). */
  pendingFirst?: boolean;
}

const PAID = { code: 0, desc: 'The service request is processed successfully.' };
const CASES: BehaviourCase[] = [
  {
    behaviour: 'approve',
    msisdn: '26775900001',
    callbacks: 1,
    daraja: PAID,
    momo: { status: 'SUCCESSFUL' },
    ledger: 'successful',
  },
  {
    behaviour: 'decline',
    msisdn: '26775900002',
    callbacks: 1,
    daraja: { code: 1032, desc: 'Request cancelled by user.' },
    momo: { status: 'FAILED', reason: 'APPROVAL_REJECTED' },
    ledger: 'failed',
  },
  {
    behaviour: 'insufficient_funds',
    msisdn: '26775900003',
    callbacks: 1,
    daraja: { code: 1, desc: 'The balance is insufficient for the transaction.' },
    momo: { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' },
    ledger: 'failed',
  },
  {
    behaviour: 'no_answer',
    msisdn: '26775900004',
    callbacks: 1,
    daraja: { code: 1019, desc: 'Transaction has expired.' },
    momo: { status: 'FAILED', reason: 'EXPIRED' },
    ledger: 'failed',
    pendingFirst: true,
  },
  {
    behaviour: 'callback_lost',
    msisdn: '26775900005',
    callbacks: 0,
    daraja: PAID,
    momo: { status: 'SUCCESSFUL' },
    ledger: 'successful',
  },
  {
    behaviour: 'duplicate_callback',
    msisdn: '26775900006',
    callbacks: 2,
    daraja: PAID,
    momo: { status: 'SUCCESSFUL' },
    ledger: 'successful',
  },
  {
    behaviour: 'late_success',
    msisdn: '26775900007',
    callbacks: 1,
    daraja: PAID,
    momo: { status: 'SUCCESSFUL' },
    ledger: 'successful',
    pendingFirst: true,
  },
];

describe('test payers', () => {
  it('lists every behaviour with a description', async () => {
    const { body } = await call(`${sandbox.url}/sandbox/payers`);
    expect(body.payers.map((p: { behaviour: string }) => p.behaviour)).toEqual([
      ...CASES.map((c) => c.behaviour),
      'manual',
    ]);
    for (const payer of body.payers)
      expect(payer).toEqual({
        msisdn: expect.stringMatching(/^\d+$/),
        behaviour: expect.any(String),
        description: expect.any(String),
      });
  });

  it.each(CASES)('Daraja: $behaviour', async (c) => {
    const path = `/daraja/${c.behaviour}`;
    const push = await daraja.push(c.msisdn, 100, `${receiver.url}${path}`);
    expect(push.status).toBe(200);
    const id = push.body.CheckoutRequestID;
    if (c.pendingFirst) {
      expect(await daraja.query(id)).toEqual({
        status: 500,
        body: {
          requestId: expect.any(String),
          errorCode: '500.001.1001',
          errorMessage: 'The transaction is being processed',
        },
      });
    }
    expect(await settled(id)).toMatchObject({
      msisdn: c.msisdn,
      amount: 'KES 100.00',
      status: c.ledger,
      behaviour: c.behaviour,
    });
    if (c.callbacks > 0) await received(path, c.callbacks);
    const callbacks = await callbacksSettled(path);
    expect(callbacks).toHaveLength(c.callbacks);
    for (const cb of callbacks) {
      expect(cb.method).toBe('POST');
      const stk = cb.body.Body.stkCallback;
      expect(stk).toMatchObject({
        CheckoutRequestID: id,
        MerchantRequestID: push.body.MerchantRequestID,
        ResultCode: c.daraja.code,
        ResultDesc: c.daraja.desc,
      });
      expect('CallbackMetadata' in stk).toBe(c.ledger === 'successful');
    }
    const query = await daraja.query(id);
    expect(query.status).toBe(200);
    expect(query.body).toMatchObject({ ResultCode: String(c.daraja.code), ResultDesc: c.daraja.desc });
  });

  it.each(CASES)('MoMo: $behaviour', async (c) => {
    const path = `/momo/${c.behaviour}`;
    const rtp = await momo.requestToPay(c.msisdn, '100.25', 'BWP', `${receiver.url}${path}`);
    expect(rtp.status).toBe(202);
    if (c.pendingFirst) expect((await momo.status(rtp.reference)).body).toMatchObject({ status: 'PENDING' });
    expect(await settled(rtp.reference)).toMatchObject({ amount: 'BWP 100.25', status: c.ledger });
    if (c.callbacks > 0) await received(path, c.callbacks);
    const callbacks = await callbacksSettled(path);
    expect(callbacks).toHaveLength(c.callbacks);
    const status = await momo.status(rtp.reference);
    expect(status.body).toMatchObject({ amount: '100.25', currency: 'BWP', ...c.momo });
    expect('reason' in status.body).toBe(c.momo.reason !== undefined);
    expect('financialTransactionId' in status.body).toBe(c.ledger === 'successful');
    for (const cb of callbacks) expect(cb).toEqual({ method: 'PUT', path, body: status.body });
  });
});

/** A paid Daraja payment: its CheckoutRequestID and receipt (from the callback). */
async function paidDaraja(amount: number | string = 100): Promise<{ id: string; receipt: string }> {
  const path = `/paid-${receiver.received.length}-${Math.random()}`;
  const push = await daraja.push('26775900001', amount, `${receiver.url}${path}`);
  const [cb] = await received(path);
  const items = cb.body.Body.stkCallback.CallbackMetadata.Item as { Name: string; Value: unknown }[];
  return {
    id: push.body.CheckoutRequestID,
    receipt: String(items.find((i) => i.Name === 'MpesaReceiptNumber')?.Value),
  };
}

async function paidMomo(amount = '100.25', msisdn = '26775900001'): Promise<string> {
  const rtp = await momo.requestToPay(msisdn, amount, 'BWP');
  await settled(rtp.reference);
  return rtp.reference;
}

describe('refunds', () => {
  it('Daraja: a reversal returns what was paid once; a second is answered R000001', async () => {
    const { id, receipt } = await paidDaraja(100);
    const first = await daraja.reverse(receipt, 100, `${receiver.url}/reversal/1`);
    expect(first).toEqual({
      status: 200,
      body: {
        OriginatorConversationID: expect.any(String),
        ConversationID: expect.stringMatching(/^AG_\d{8}_/),
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
    });
    const [result] = await received('/reversal/1');
    expect(result.body.Result).toMatchObject({
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: first.body.OriginatorConversationID,
      ConversationID: first.body.ConversationID,
      TransactionID: expect.stringMatching(/^[A-Z][A-Z0-9]{9}$/),
    });
    const params = Object.fromEntries(
      result.body.Result.ResultParameters.ResultParameter.map((p: { Key: string; Value: unknown }) => [
        p.Key,
        p.Value,
      ]),
    );
    expect(params).toEqual({
      Amount: 100,
      TransCompletedTime: expect.any(Number),
      OriginalTransactionID: receipt,
      Charge: 0,
    });
    expect(await ledgerRow(id)).toMatchObject({ status: 'refunded', refundedAmount: 'KES 100.00' });

    expect((await daraja.reverse(receipt, 100, `${receiver.url}/reversal/2`)).status).toBe(200);
    const [second] = await received('/reversal/2');
    expect(second.body.Result).toMatchObject({
      ResultCode: 'R000001',
      ResultDesc: 'The transaction has already been reversed.',
    });
    expect(await ledgerRow(id)).toMatchObject({ status: 'refunded', refundedAmount: 'KES 100.00' });
  });

  it('Daraja: more than was paid is refused at once; an unknown receipt is answered R000002', async () => {
    const { id, receipt } = await paidDaraja(100);
    expect(await daraja.reverse(receipt, 101, `${receiver.url}/reversal/over`)).toMatchObject({
      status: 400,
      body: { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid Amount' },
    });
    await daraja.reverse('QQQQQQQQQQ', 100, `${receiver.url}/reversal/unknown`);
    const [unknown] = await received('/reversal/unknown');
    expect(unknown.body.Result).toMatchObject({
      ResultCode: 'R000002',
      ResultDesc: 'The OriginalTransactionID is invalid.',
    });
    // A partial reversal is still allowed, and counts as the one refund.
    await daraja.reverse(receipt, 40, `${receiver.url}/reversal/partial`);
    await received('/reversal/partial');
    expect(await ledgerRow(id)).toMatchObject({ status: 'refunded', refundedAmount: 'KES 40.00' });
    expect(callbacksTo('/reversal/over')).toHaveLength(0);
  });

  it('MoMo: a refund returns what was paid once, with its status and callback', async () => {
    const paid = await paidMomo('100.25');
    const refund = await momo.refund(paid, '100.25', 'BWP', `${receiver.url}/refund/1`);
    expect(refund.status).toBe(202);
    const [cb] = await received('/refund/1');
    const expected = {
      financialTransactionId: expect.stringMatching(/^\d{10}$/),
      externalId: 'refund-1',
      amount: '100.25',
      currency: 'BWP',
      payee: { partyIdType: 'MSISDN', partyId: '26775900001' },
      payerMessage: 'Refund',
      payeeNote: 'Refund',
      status: 'SUCCESSFUL',
    };
    expect(cb).toEqual({ method: 'PUT', path: '/refund/1', body: expected });
    expect(await momo.refundStatus(refund.reference)).toEqual({ status: 200, body: expected });
    expect(await ledgerRow(paid)).toMatchObject({ status: 'refunded', refundedAmount: 'BWP 100.25' });

    // The same refund reference again: 409, nothing recorded twice.
    expect((await momo.refund(paid, '100.25', 'BWP', undefined, refund.reference)).status).toBe(409);
    // A second refund of the same payment: accepted on the wire, FAILED.
    const second = await momo.refund(paid, '1', 'BWP');
    expect(second.status).toBe(202);
    expect((await momo.refundStatus(second.reference)).body).toMatchObject({
      status: 'FAILED',
      reason: 'NOT_ALLOWED',
    });
    expect(await ledgerRow(paid)).toMatchObject({ refundedAmount: 'BWP 100.25' });
  });

  it('MoMo: never more than was paid, never an unpaid or unknown payment, never in another currency', async () => {
    const paid = await paidMomo('100.25');
    const declined = await paidMomo('5', '26775900002');
    const refused = [
      [await momo.refund(paid, '100.26', 'BWP'), 'NOT_ALLOWED'],
      [await momo.refund(paid, '100.25', 'EUR'), 'INVALID_CURRENCY'],
      [await momo.refund(declined, '5', 'BWP'), 'NOT_ALLOWED'],
      [await momo.refund(randomUUID(), '5', 'BWP'), 'RESOURCE_NOT_FOUND'],
    ] as const;
    for (const [refund, reason] of refused) {
      expect(refund.status).toBe(202);
      expect((await momo.refundStatus(refund.reference)).body).toMatchObject({ status: 'FAILED', reason });
    }
    expect(await ledgerRow(paid)).toMatchObject({ status: 'successful', refundedAmount: 'BWP 0.00' });
    // After all those refusals, the one real refund still goes through.
    const ok = await momo.refund(paid, '100.25', 'BWP');
    await until(
      'the refund',
      async () => (await momo.refundStatus(ok.reference)).body.status === 'SUCCESSFUL',
    );
  });

  it('two refunds of one payment at once: exactly one is accepted', async () => {
    const paid = await paidMomo('50');
    const [a, b] = await Promise.all([momo.refund(paid, '50', 'BWP'), momo.refund(paid, '50', 'BWP')]);
    const states = await until('both refunds ended', async () => {
      const s = [
        (await momo.refundStatus(a.reference)).body.status,
        (await momo.refundStatus(b.reference)).body.status,
      ];
      return s.includes('PENDING') ? null : s;
    });
    expect(states.sort()).toEqual(['FAILED', 'SUCCESSFUL']);
    expect(await ledgerRow(paid)).toMatchObject({ status: 'refunded', refundedAmount: 'BWP 50.00' });
  });
});

describe('manual prompts', () => {
  it('the manual payer waits for an approve or a decline, listed by number', async () => {
    const a = await momo.requestToPay('26775900008', '101.50', 'BWP', `${receiver.url}/manual`);
    const b = await daraja.push('26775900008', 7, `${receiver.url}/manual-daraja`);
    const { body } = await call(`${sandbox.url}/sandbox/prompts?msisdn=26775900008`);
    expect(body.prompts).toEqual([
      expect.objectContaining({
        id: a.reference,
        wire: 'momo',
        amount: 'BWP 101.50',
        text: 'Pay BWP 101.50 to Power vendor. Enter PIN',
      }),
      expect.objectContaining({
        id: b.body.CheckoutRequestID,
        wire: 'daraja',
        text: 'Pay KES 7.00 to PWR-1234. Enter PIN',
      }),
    ]);
    expect((await call(`${sandbox.url}/sandbox/prompts?msisdn=26771234567`)).body.prompts).toEqual([]);
    expect((await momo.status(a.reference)).body.status).toBe('PENDING');

    const approved = await call(`${sandbox.url}/sandbox/prompts/${a.reference}/approve`, { method: 'POST' });
    expect(approved).toMatchObject({ status: 200, body: { id: a.reference, status: 'successful' } });
    expect((await received('/manual'))[0].body).toMatchObject({ status: 'SUCCESSFUL' });
    await call(`${sandbox.url}/sandbox/prompts/${b.body.CheckoutRequestID}/decline`, { method: 'POST' });
    expect((await received('/manual-daraja'))[0].body.Body.stkCallback.ResultCode).toBe(1032);
    expect((await call(`${sandbox.url}/sandbox/prompts?msisdn=26775900008`)).body.prompts).toEqual([]);

    expect(
      (await call(`${sandbox.url}/sandbox/prompts/${a.reference}/decline`, { method: 'POST' })).status,
    ).toBe(409);
    expect((await call(`${sandbox.url}/sandbox/prompts/nope/approve`, { method: 'POST' })).status).toBe(404);
    const auto = await momo.requestToPay('26775900004', '1', 'BWP');
    expect(
      (await call(`${sandbox.url}/sandbox/prompts/${auto.reference}/approve`, { method: 'POST' })).status,
    ).toBe(409);
  });

  it('an unanswered manual prompt expires', async () => {
    const a = await momo.requestToPay('26775900008', '1', 'BWP');
    expect(await settled(a.reference)).toMatchObject({ status: 'failed', failure: 'expired' });
    expect((await momo.status(a.reference)).body).toMatchObject({ status: 'FAILED', reason: 'EXPIRED' });
  });

  it("with unlisted: 'manual', a number that is not a test payer waits; test payers keep their behaviour", async () => {
    const manual = await startPaymentSandbox({ silent: true, approveDelayMs: 10, unlisted: 'manual' });
    try {
      const client = new MomoClient(manual.url);
      await client.authenticate();
      const unlisted = await client.requestToPay('26771234567', '10', 'BWP');
      const listed = await client.requestToPay('26775900001', '10', 'BWP');
      await until(
        'the listed payer paid',
        async () => (await client.status(listed.reference)).body.status === 'SUCCESSFUL',
      );
      expect((await client.status(unlisted.reference)).body.status).toBe('PENDING');
      const prompts = (await call(`${manual.url}/sandbox/prompts`)).body.prompts;
      expect(prompts.map((p: { id: string }) => p.id)).toEqual([unlisted.reference]);
      expect((await call(`${manual.url}/sandbox/payers`)).body.unlisted).toBe('manual');
    } finally {
      await manual.close();
    }
  });
});

describe("manual numbers (the simulator's phones)", () => {
  it('a number switched to manual waits for its answer, others still approve, test payers keep their script', async () => {
    const json = { method: 'POST', headers: { 'content-type': 'application/json' } };
    const on = await call(`${sandbox.url}/sandbox/payers/manual`, {
      ...json,
      body: JSON.stringify({ msisdn: '26771112223' }),
    });
    expect(on).toEqual({ status: 201, body: { msisdn: '26771112223', behaviour: 'manual' } });
    const scripted = await call(`${sandbox.url}/sandbox/payers/manual`, {
      ...json,
      body: JSON.stringify({ msisdn: '26775900002' }),
    });
    expect(scripted).toEqual({ status: 200, body: { msisdn: '26775900002', behaviour: 'decline' } });
    expect(
      (
        await call(`${sandbox.url}/sandbox/payers/manual`, {
          ...json,
          body: JSON.stringify({ msisdn: '+1' }),
        })
      ).status,
    ).toBe(400);
    expect((await call(`${sandbox.url}/sandbox/payers`)).body.manual).toEqual(['26771112223']);

    const mine = await momo.requestToPay('26771112223', '101.50', 'BWP');
    const other = await momo.requestToPay('26771112224', '101.50', 'BWP');
    expect(await settled(other.reference)).toMatchObject({ status: 'successful' });
    expect((await momo.status(mine.reference)).body.status).toBe('PENDING');
    const { body } = await call(`${sandbox.url}/sandbox/prompts?msisdn=26771112223`);
    expect(body.prompts).toEqual([
      expect.objectContaining({ id: mine.reference, text: 'Pay BWP 101.50 to Power vendor. Enter PIN' }),
    ]);
    await call(`${sandbox.url}/sandbox/prompts/${mine.reference}/approve`, { method: 'POST' });
    expect(await settled(mine.reference)).toMatchObject({ status: 'successful' });

    // Switched back: it approves by itself again.
    expect(
      (await call(`${sandbox.url}/sandbox/payers/manual/26771112223`, { method: 'DELETE' })).status,
    ).toBe(204);
    const again = await momo.requestToPay('26771112223', '1', 'BWP');
    expect(await settled(again.reference)).toMatchObject({ status: 'successful' });
  });
});

describe('faults', () => {
  const arm = (fault: object) =>
    call(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fault),
    });

  it('collect unavailable: a 5xx in each wire, nothing created, the next call works', async () => {
    expect((await arm({ operation: 'collect', fault: 'unavailable', count: 2 })).status).toBe(201);
    expect(await daraja.push('26775900001', 5, `${receiver.url}/x`)).toMatchObject({
      status: 500,
      body: { errorCode: '500.003.02' },
    });
    const rtp = await momo.requestToPay('26775900001', '5', 'BWP');
    expect(rtp).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    expect((await momo.status(rtp.reference)).status).toBe(404);
    expect((await call(`${sandbox.url}/sandbox/payments`)).body.payments).toEqual([]);
    expect((await daraja.push('26775900001', 5, `${receiver.url}/x`)).status).toBe(200);
  });

  it('collect dropped: no answer, but the push was made and its callback arrives', async () => {
    await arm({ operation: 'collect', fault: 'drop' });
    await expect(daraja.push('26775900001', 5, `${receiver.url}/lost-answer`)).rejects.toThrow();
    const [cb] = await received('/lost-answer');
    expect(cb.body.Body.stkCallback.ResultCode).toBe(0);
    expect((await call(`${sandbox.url}/sandbox/payments`)).body.payments).toHaveLength(1);
  });

  it('MoMo collect internal_error with completes: the POST landed; a retry with the same reference is 409', async () => {
    await arm({ operation: 'collect', fault: 'internal_error', completes: true });
    const rtp = await momo.requestToPay('26775900001', '5', 'BWP');
    expect(rtp).toMatchObject({ status: 500, body: { code: 'INTERNAL_PROCESSING_ERROR' } });
    expect((await momo.requestToPay('26775900001', '5', 'BWP', undefined, rtp.reference)).status).toBe(409);
    await settled(rtp.reference);
    expect((await call(`${sandbox.url}/sandbox/payments`)).body.payments).toHaveLength(1);
  });

  it('status slow: the answer comes after delayMs', async () => {
    const rtp = await momo.requestToPay('26775900001', '5', 'BWP');
    await arm({ operation: 'status', fault: 'slow', delayMs: 300 });
    const started = Date.now();
    expect((await momo.status(rtp.reference)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('callback dropped: the payment is made, its callback never sent, the query finds it', async () => {
    await arm({ operation: 'callback', fault: 'drop' });
    const push = await daraja.push('26775900001', 5, `${receiver.url}/dropped`);
    expect(await settled(push.body.CheckoutRequestID)).toMatchObject({ status: 'successful' });
    expect(await callbacksSettled('/dropped')).toEqual([]);
    expect((await daraja.query(push.body.CheckoutRequestID)).body.ResultCode).toBe('0');
    const log = (await call(`${sandbox.url}/sandbox/callbacks`)).body.callbacks;
    expect(log[0]).toMatchObject({ id: push.body.CheckoutRequestID, outcome: 'dropped', status: null });
  });

  it('refuses an unknown operation or a 5xx on a callback; DELETE clears', async () => {
    expect((await arm({ operation: 'confirm', fault: 'drop' })).status).toBe(400);
    expect((await arm({ operation: 'callback', fault: 'unavailable' })).status).toBe(400);
    await arm({ operation: 'token', fault: 'unavailable' });
    expect(Object.keys((await call(`${sandbox.url}/sandbox/faults`)).body)).toEqual(['token']);
    expect((await call(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await daraja.authenticate()).status).toBe(200);
  });
});

describe('wire checks', () => {
  it('Daraja refuses bad credentials, tokens, passwords, fractions and content types in its own envelope', async () => {
    const generate = `${sandbox.url}/oauth/v1/generate`;
    const badAuth = `Basic ${Buffer.from('x:y').toString('base64')}`;
    expect(
      (await call(`${generate}?grant_type=client_credentials`, { headers: { Authorization: badAuth } })).body
        .errorCode,
    ).toBe('400.008.01');
    expect(
      (await call(`${generate}?grant_type=password`, { headers: { Authorization: badAuth } })).body.errorCode,
    ).toBe('400.008.02');
    expect((await daraja.authenticate()).body).toEqual({
      access_token: expect.any(String),
      expires_in: '3599',
    });
    expect(
      (await daraja.push('26775900001', 5, `${receiver.url}/x`, { Password: 'bm9wZQ==' })).body,
    ).toMatchObject({
      errorCode: '500.001.1001',
      errorMessage: 'Wrong credentials',
    });
    expect((await daraja.push('26775900001', 10.5, `${receiver.url}/x`)).body.errorMessage).toBe(
      'Bad Request - Invalid Amount',
    );
    expect((await daraja.push('26775900001', 5, 'not a url')).body.errorMessage).toBe(
      'Bad Request - Invalid CallBackURL',
    );
    const plain = await call(`${sandbox.url}/mpesa/stkpush/v1/processrequest`, {
      method: 'POST',
      headers: { Authorization: 'Bearer nope', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(plain).toMatchObject({ status: 404, body: { errorCode: '404.001.03' } });
    const text = await call(`${sandbox.url}/mpesa/stkpush/v1/processrequest`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${daraja.token}`, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text).toMatchObject({
      status: 400,
      body: { errorMessage: 'Bad Request - Invalid BusinessShortCode' },
    });
    expect((await daraja.query('ws_CO_0')).body.errorMessage).toBe('Bad Request - Invalid CheckoutRequestID');
  });

  it('Daraja in BWP with fractions: exact minor units end to end', async () => {
    const bwp = await startPaymentSandbox({
      silent: true,
      approveDelayMs: 5,
      daraja: { currency: 'BWP', wholeUnits: false },
    });
    try {
      const client = new DarajaClient(bwp.url);
      await client.authenticate();
      const push = await client.push('26771234567', '101.50', `${receiver.url}/bwp`);
      const [cb] = await received('/bwp');
      expect(cb.body.Body.stkCallback.CallbackMetadata.Item[0]).toEqual({ Name: 'Amount', Value: 101.5 });
      const rows = (await call(`${bwp.url}/sandbox/payments`)).body.payments;
      expect(rows[0]).toMatchObject({
        id: push.body.CheckoutRequestID,
        amount: 'BWP 101.50',
        currency: 'BWP',
      });
    } finally {
      await bwp.close();
    }
  });

  it('MoMo refuses missing keys, other environments, bad references, bodies and amounts', async () => {
    const plain = await call(`${sandbox.url}/collection/v1_0/requesttopay`, { method: 'POST' });
    expect(plain).toMatchObject({ status: 401, body: { statusCode: 401 } });
    const withBody = await call(`${sandbox.url}/collection/token/`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${MOMO_DEFAULTS.apiUserId}:${MOMO_DEFAULTS.apiKey}`).toString('base64')}`,
        'Ocp-Apim-Subscription-Key': MOMO_DEFAULTS.collectionKey,
      },
      body: '{}',
    });
    expect(withBody.status).toBe(400);
    expect((await momo.requestToPay('26771234567', '1', 'BWP', undefined, 'not-a-uuid')).status).toBe(400);
    expect((await momo.requestToPay('26771234567', '1.005', 'BWP')).status).toBe(400);
    expect(await momo.requestToPay('26771234567', '1', 'bwp')).toMatchObject({
      status: 500,
      body: { code: 'INVALID_CURRENCY' },
    });
    expect(await momo.status(randomUUID())).toMatchObject({
      status: 404,
      body: { code: 'RESOURCE_NOT_FOUND' },
    });
    const headers = {
      'Ocp-Apim-Subscription-Key': MOMO_DEFAULTS.collectionKey,
      'X-Target-Environment': 'sandbox',
    };
    const badToken = await call(`${sandbox.url}/collection/v1_0/requesttopay/${randomUUID()}`, {
      headers: { ...headers, Authorization: 'Bearer x' },
    });
    expect(badToken.status).toBe(401);
    const otherEnv = await call(`${sandbox.url}/collection/v1_0/requesttopay/${randomUUID()}`, {
      headers: { ...headers, Authorization: `Bearer ${momo.token}`, 'X-Target-Environment': 'mtnuganda' },
    });
    expect(otherEnv).toMatchObject({ status: 403, body: { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' } });
  });

  it('MoMo: a reused X-Reference-Id is 409 and creates nothing twice', async () => {
    const first = await momo.requestToPay('26771234567', '1', 'BWP');
    expect((await momo.requestToPay('26771234567', '1', 'BWP', undefined, first.reference)).body).toEqual({
      code: 'RESOURCE_ALREADY_EXIST',
      message: 'Duplicated reference id. Creation of resource failed.',
    });
    expect((await call(`${sandbox.url}/sandbox/payments`)).body.payments).toHaveLength(1);
  });

  it('GET /sandbox/payments lists newest first with money strings', async () => {
    const a = await momo.requestToPay('26771234567', '1', 'BWP');
    const b = await momo.requestToPay('26771234567', '2.5', 'EUR');
    const rows = (await call(`${sandbox.url}/sandbox/payments`)).body.payments;
    expect(rows.map((r: { id: string }) => r.id)).toEqual([b.reference, a.reference]);
    expect(rows[0]).toMatchObject({
      msisdn: '26771234567',
      amount: 'EUR 2.50',
      currency: 'EUR',
      refundedAmount: 'EUR 0.00',
    });
  });
});

describe('late success (POST /sandbox/payments/{id}/late-success)', () => {
  it('a declined payment paid after all: its success callback, the query says paid, a refund is accepted', async () => {
    const push = await daraja.push('26775900002', 7, `${receiver.url}/late`);
    const id = push.body.CheckoutRequestID as string;
    expect((await received('/late'))[0].body.Body.stkCallback.ResultCode).toBe(1032);
    const paid = await call(`${sandbox.url}/sandbox/payments/${id}/late-success`, { method: 'POST' });
    expect(paid).toMatchObject({ status: 200, body: { id, status: 'successful' } });
    const [, late] = await received('/late', 2);
    expect(late.body.Body.stkCallback.ResultCode).toBe(0);
    expect((await daraja.query(id)).body.ResultCode).toBe('0');
    const receipt = late.body.Body.stkCallback.CallbackMetadata.Item.find(
      (item: { Name: string }) => item.Name === 'MpesaReceiptNumber',
    ).Value as string;
    expect((await daraja.reverse(receipt, 7, `${receiver.url}/reversal`)).body.ResponseCode).toBe('0');
    // Only a failed payment can be paid late: once paid, or unknown, it is refused.
    expect(
      (await call(`${sandbox.url}/sandbox/payments/${id}/late-success`, { method: 'POST' })).status,
    ).toBe(409);
    expect((await call(`${sandbox.url}/sandbox/payments/nope/late-success`, { method: 'POST' })).status).toBe(
      404,
    );
  });
});
