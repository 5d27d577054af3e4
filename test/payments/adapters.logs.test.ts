import { MpesaAdapter } from '../../src/payments/mpesa/adapter';
import { MomoAdapter } from '../../src/payments/momo/adapter';
import { HttpProviderAdapter } from '../../src/payments/http/adapter';
import { captureLogs } from '../support/logs';
import { ctx, noWait, startReplay, type Replay } from './adapters.support';

/** One JSON line per provider call (operation, status, duration, outcome); never a secret, token or number. */

const SECRETS = {
  consumerSecret: 'consumer-secret-0001',
  passkey: 'passkey-0000000000000001',
  securityCredential: 'encrypted-credential-0001',
  callbackSecret: 'callback-secret-0001',
  darajaToken: 'daraja-token-0001',
  momoApiKey: 'momo-api-key-0001',
  subscriptionKey: 'collection-key-0001',
  momoToken: 'momo-token-0001',
  httpSecret: 'operator-shared-secret-0001',
};
const PAYER = '254708374149';

let replay: Replay;
let logs: ReturnType<typeof captureLogs>;
beforeAll(async () => {
  replay = await startReplay();
  logs = captureLogs();
});
afterAll(async () => {
  logs.stop();
  await replay.close();
});

it('logs each call and never a secret, a token, a password or a payer number', async () => {
  const callback = `https://gw.example.com/payments/callback/payment?key=${SECRETS.callbackSecret}`;
  replay.script('GET /oauth/v1/generate', {
    status: 200,
    body: { access_token: SECRETS.darajaToken, expires_in: 3599 },
  });
  replay.script('POST /mpesa/stkpush/v1/processrequest', {
    status: 400,
    body: { errorCode: '400.002.02', errorMessage: `Bad Request - Invalid PhoneNumber ${PAYER}` },
  });
  replay.script('POST /mpesa/reversal/v1/request', { status: 503 });
  replay.script('POST /collection/token/', {
    status: 200,
    body: { access_token: SECRETS.momoToken, expires_in: 3600 },
  });
  replay.script('POST /collection/v1_0/requesttopay', { status: 202 });
  replay.script('POST /collect', { status: 500 });

  const mpesa = new MpesaAdapter(
    {
      baseUrl: replay.url,
      consumerKey: 'consumer-key-0001',
      consumerSecret: SECRETS.consumerSecret,
      shortcode: '174379',
      passkey: SECRETS.passkey,
      transactionType: 'CustomerPayBillOnline',
      partyB: '174379',
      callbackUrl: callback,
      refundResultUrl: callback,
      refundTimeoutUrl: callback,
      initiator: 'apiop37',
      securityCredential: SECRETS.securityCredential,
      currency: 'KES',
      amountDecimals: 0,
    },
    noWait,
  );
  const amount = { currency: 'KES', minor: 10_000 };
  await mpesa
    .collect({ reference: 'pay-1', payerMsisdn: PAYER, amount, description: 'x' }, ctx('log'))
    .catch(() => undefined);
  await mpesa
    .refund(
      {
        reference: 'pay-1',
        providerReference: 'ws_CO_1',
        receipt: 'NLJ7RT61SV',
        payerMsisdn: PAYER,
        amount,
        refundReference: 'r-1',
      },
      ctx('log'),
    )
    .catch(() => undefined);
  const momo = new MomoAdapter(
    {
      baseUrl: replay.url,
      apiUser: 'api-user',
      apiKey: SECRETS.momoApiKey,
      subscriptionKey: SECRETS.subscriptionKey,
      targetEnvironment: 'sandbox',
      callbackUrl: callback,
      refundCallbackUrl: callback,
    },
    noWait,
  );
  await momo.collect({ reference: 'pay-2', payerMsisdn: PAYER, amount, description: 'x' }, ctx('log'));
  const http = new HttpProviderAdapter(
    {
      url: replay.url,
      secret: SECRETS.httpSecret,
      auth: 'bearer',
      callbackUrl: callback,
      refundCallbackUrl: callback,
    },
    { ...noWait, maxRetries: 0 },
  );
  await http
    .collect({ reference: 'pay-3', payerMsisdn: PAYER, amount, description: 'x' }, ctx('log'))
    .catch(() => undefined);

  const records = logs.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.component === 'payments');
  expect(records).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        provider: 'mpesa',
        operation: 'token',
        status: 200,
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({
        provider: 'mpesa',
        operation: 'collect',
        status: 400,
        outcome: 'rejected',
        errorCode: '400.002.02',
      }),
      expect.objectContaining({ provider: 'mpesa', operation: 'refund', status: 503, outcome: 'unknown' }),
      expect.objectContaining({ provider: 'momo', operation: 'collect', status: 202 }),
      expect.objectContaining({ provider: 'http', operation: 'collect', status: 500, outcome: 'unknown' }),
    ]),
  );
  const all = logs.lines.join('\n');
  const basic = (user: string, secret: string) => Buffer.from(`${user}:${secret}`).toString('base64');
  for (const secret of [
    ...Object.values(SECRETS),
    basic('consumer-key-0001', SECRETS.consumerSecret),
    basic('api-user', SECRETS.momoApiKey),
    Buffer.from(`174379${SECRETS.passkey}`).toString('base64').slice(0, 20),
    PAYER,
  ])
    expect(all).not.toContain(secret);
});
