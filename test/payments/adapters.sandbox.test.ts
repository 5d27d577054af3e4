import {
  MOMO_DEFAULTS,
  DARAJA_DEFAULTS,
  TEST_PAYERS,
  startPaymentSandbox,
  type Behaviour,
  type RunningPaymentSandbox,
} from '../../src/payments/sandbox';
import { paymentCallbackUrl } from '../../src/payments/providers';
import { MpesaAdapter } from '../../src/payments/mpesa/adapter';
import { MomoAdapter } from '../../src/payments/momo/adapter';
import type { CallbackKind, PaymentProvider, ProviderNotice } from '../../src/payments/port';
import { until } from '../support/wait';
import { ctx, startReplay, type Replay } from './adapters.support';

/**
 * The adapters end to end against the embedded payment sandbox, over both wire formats:
 * collect → callback → status for the test payers, and a refund with its result.
 */

const SECRET = 'callback-secret-0001';
const BWP = (minor: number) => ({ currency: 'BWP', minor });
const payer = (behaviour: Behaviour) => TEST_PAYERS.find((p) => p.behaviour === behaviour)!.msisdn;

let sandbox: RunningPaymentSandbox;
let gateway: Replay;
const providers: Record<string, PaymentProvider> = {};

beforeAll(async () => {
  sandbox = await startPaymentSandbox({
    silent: true,
    approveDelayMs: 20,
    refundDelayMs: 20,
    daraja: { currency: 'BWP', wholeUnits: false },
  });
  gateway = await startReplay();
  for (const method of ['POST', 'PUT'])
    for (const path of ['payment', 'refund', 'refund-timeout'])
      gateway.script(`${method} /payments/callback/${path}`, { status: 200, body: {} });
  const url = (kind: CallbackKind) => paymentCallbackUrl(gateway.url, SECRET, kind);
  providers.mpesa = new MpesaAdapter({
    baseUrl: sandbox.url,
    consumerKey: DARAJA_DEFAULTS.consumerKey,
    consumerSecret: DARAJA_DEFAULTS.consumerSecret,
    shortcode: DARAJA_DEFAULTS.shortcode,
    passkey: DARAJA_DEFAULTS.passkey,
    transactionType: 'CustomerPayBillOnline',
    partyB: DARAJA_DEFAULTS.shortcode,
    callbackUrl: url('payment'),
    refundResultUrl: url('refund'),
    refundTimeoutUrl: url('refund_timeout'),
    initiator: 'apiop37',
    securityCredential: 'sandbox-credential',
    currency: 'BWP',
    amountDecimals: 2,
  });
  providers.momo = new MomoAdapter({
    baseUrl: sandbox.url,
    apiUser: MOMO_DEFAULTS.apiUserId,
    apiKey: MOMO_DEFAULTS.apiKey,
    subscriptionKey: MOMO_DEFAULTS.collectionKey,
    targetEnvironment: MOMO_DEFAULTS.targetEnvironment,
    callbackUrl: url('payment'),
    refundCallbackUrl: url('refund'),
    disbursement: {
      subscriptionKey: MOMO_DEFAULTS.disbursementKey,
      apiUser: MOMO_DEFAULTS.apiUserId,
      apiKey: MOMO_DEFAULTS.apiKey,
    },
  });
});
afterAll(async () => {
  await sandbox?.close();
  await gateway?.close();
});

/** The callbacks of `kind` the gateway received, read by the adapter (as the route will). */
function notices(provider: PaymentProvider, kind: CallbackKind): ProviderNotice[] {
  const path = `/payments/callback/${kind === 'refund_timeout' ? 'refund-timeout' : kind}`;
  return gateway
    .requests()
    .filter((r) => r.path === path)
    .map((r) => {
      expect(r.query).toBe(`key=${SECRET}`);
      return provider.parseCallback({ kind, body: r.body, rawBody: r.rawBody, headers: {} });
    })
    .filter((n): n is ProviderNotice => n !== null);
}

let seq = 0;
/** A payment reference: MoMo takes it as its X-Reference-Id. */
const reference = () =>
  `00000000-0000-4000-8000-${String(Date.now() % 1e6).padStart(6, '0')}${String((seq += 1)).padStart(6, '0')}`;

async function collect(name: string, behaviour: Behaviour, minor = 10_150) {
  const provider = providers[name];
  const request = {
    reference: reference(),
    payerMsisdn: payer(behaviour),
    amount: BWP(minor),
    description: 'Electricity',
  };
  const accepted = await provider.collect(request, ctx());
  expect(accepted.accepted).toBe(true);
  const mine = (n: ProviderNotice) =>
    n.type === 'payment' &&
    (n.providerReference === accepted.providerReference || n.reference === request.reference);
  return { provider, request, accepted, callbacks: () => notices(provider, 'payment').filter(mine) };
}

describe.each(['mpesa', 'momo'])('%s against the payment sandbox', (name) => {
  test.each([
    ['approve', { state: 'successful', amount: BWP(10_150) }],
    ['decline', { state: 'failed', reason: 'declined' }],
    ['insufficient_funds', { state: 'failed', reason: 'insufficient_funds' }],
  ] as Array<[Behaviour, object]>)('%s: collect → callback → status', async (behaviour, expected) => {
    const { provider, request, accepted, callbacks } = await collect(name, behaviour);
    const [notice] = await until(`${behaviour} callback`, () =>
      callbacks().length > 0 ? callbacks() : null,
    );
    expect(notice).toMatchObject(expected);
    const status = await provider.status(
      { reference: request.reference, providerReference: accepted.providerReference },
      ctx(),
    );
    expect(status).toMatchObject({ state: (expected as { state: string }).state });
    if (behaviour === 'approve') expect(notice.type === 'payment' && notice.receipt).toBeTruthy();
  });

  it('callback_lost: no callback, the status query finds the payment', async () => {
    const { provider, request, accepted, callbacks } = await collect(name, 'callback_lost');
    const status = await until('paid by query', async () => {
      const s = await provider.status(
        { reference: request.reference, providerReference: accepted.providerReference },
        ctx(),
      );
      return s.state === 'successful' ? s : null;
    });
    expect(status.state).toBe('successful');
    expect(callbacks()).toHaveLength(0);
  });

  it('refund: a paid payment goes back to the payer, once confirmed by the provider', async () => {
    const { provider, request, accepted, callbacks } = await collect(name, 'approve', 5_000);
    const [paid] = await until('paid', () => (callbacks().length > 0 ? callbacks() : null));
    expect(paid).toMatchObject({ state: 'successful' });
    const refundReference = reference();
    const refund = await provider.refund(
      {
        reference: request.reference,
        providerReference: accepted.providerReference,
        receipt: (paid as { receipt?: string }).receipt ?? null,
        payerMsisdn: request.payerMsisdn,
        amount: request.amount,
        refundReference,
      },
      ctx(),
    );
    expect(refund.state).toBe('pending');
    const [done] = await until('refund result', () => {
      const found = notices(provider, 'refund').filter(
        (n) =>
          n.type === 'refund' &&
          (n.providerReference === refund.providerReference || n.refundReference === refundReference),
      );
      return found.length > 0 ? found : null;
    });
    expect(done).toMatchObject({ type: 'refund', state: 'successful', amount: BWP(5_000) });
    if (provider.refundStatus)
      await expect(
        provider.refundStatus({ refundReference, providerReference: refund.providerReference }, ctx()),
      ).resolves.toMatchObject({
        state: 'successful',
      });
    const ledger = (await (await fetch(`${sandbox.url}/sandbox/payments`)).json()) as {
      payments: Array<{ msisdn: string; status: string; refundedAmount: string; amount: string }>;
    };
    expect(ledger.payments).toContainEqual(
      expect.objectContaining({ amount: 'BWP 50.00', refundedAmount: 'BWP 50.00', status: 'refunded' }),
    );
  });
});
