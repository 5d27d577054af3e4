import { NodeProcess } from '../support/node-process';
import { until } from '../support/wait';
import { buy, FaultTable, judge, phoneFor, World } from './harness';
import { PaymentWorld, type Provider } from './payment-world';

/**
 * The buyer pays (#30): real processes SIGKILLed at every step between the payment request and
 * the token SMS, all at once — each buyer is first brought to its step and held there by a
 * sandbox (an observable condition each: a held request, a ledger entry, a row state), then the
 * processes die together and start again on the same records:
 *
 *   B  the provider answered the collect, its callback not yet arrived (dropped: only the query finds it)
 *   C  the callback applied: killed right after the gateway answered it 200
 *   D  paid, confirm held at the purchase service
 *   E  the purchase service answered, the token SMS held at the SMS provider
 *   F  paid, the vend failed definitively, the refund held at the payment provider
 *   G  declined (the purchase ended unpaid), then the money came after all, its refund held
 *   P  (MoMo) the provider down (5xx on every attempt) while collecting
 *
 * Right after the restart the provider's callbacks are replayed out of order (C's success again,
 * a "cancelled" for C, G's decline again): nothing may change. Judged from the records, the
 * payment sandbox's ledger and refunds, the purchase sandbox's ledger and the SMS provider.
 * (a), the kill right after the Buy with the collect in flight, is payments.faults.ts.
 */

const CALLBACK_SECRET = 'faults-payment-kills-callback-key';
/** Confirms and refunds are held this long: past the kill and the restart. */
const HOLD_MS = 45_000;
const REFUND_COMPLETES_MS = 25_000;
/** Stalled jobs (~60 s), the payment polls (8 s and up), the held requests. */
const SETTLED = { timeoutMs: 170_000 };

const world = new World();
const paying = new PaymentWorld(world, CALLBACK_SECRET);
const table = new FaultTable(__filename);
const processes: NodeProcess[] = [];
beforeAll(async () => {
  await world.start();
  // A refund completes (and its result is sent) this long after it was asked: past the kill and
  // the restart, so the kill lands with the refund in flight and nothing known of it yet.
  await paying.start({ refundDelayMs: REFUND_COMPLETES_MS });
});
afterAll(async () => {
  table.write();
  for (const process of processes) await process.stop();
  await paying.close();
  await world.close();
});

interface Layout {
  provider: Provider;
  /** A separate worker runs the purchase, payment and SMS jobs; both processes are killed. */
  split: boolean;
}

async function killAtEveryStep(layout: Layout): Promise<void> {
  const env = world.gatewayEnv({
    ...paying.providerEnv(layout.provider),
    // D's confirm is held at the service: the client waits for it (the kill lands mid-confirm).
    PURCHASE_API_CONFIRM_TIMEOUT_MS: String(HOLD_MS + 10_000),
    // C's confirm may not have left when the kill came: "no charge found" is then re-checked 2 s,
    // not a day, before its buyer is refunded.
    RECONCILE_RECHECK_MS: '2000',
    ...(layout.split && { GATEWAY_WORKERS: 'false' }),
  });
  const gateway = new NodeProcess('src/main.ts', env);
  processes.push(gateway);
  const callbackBase = await gateway.reserveUrl();
  env.PAYMENT_CALLBACK_BASE_URL = callbackBase;
  const worker = layout.split ? new NodeProcess('src/worker.ts', env) : null;
  if (worker) processes.push(worker);
  await gateway.start();
  await worker?.start();
  const route = () => gateway;
  const label = `${layout.provider}${layout.split ? '-split' : ''}`;
  const [B, C, D, E, F, G, P] = Array.from({ length: 7 }, () => phoneFor());
  const phones = layout.provider === 'momo' ? [B, C, D, E, F, G, P] : [B, C, D, E, F, G];

  // P: the provider answers 5xx to the collect and both of the adapter's retries (MoMo re-sends
  // with the same X-Reference-Id); it stays pending, is asked about, and sent again once found never landed.
  if (phones.includes(P)) {
    await paying.armPayment('collect', 'unavailable', 3);
    await buy(world, route, P, { label });
    await paying.paymentFaultsSpent('P: the collect refused three times');
  }
  // D: paid, its confirm held at the purchase service.
  await world.arm('confirm', 'slow', 1, HOLD_MS);
  await buy(world, route, D, { label });
  await world.faultsSpent();
  // F: paid, the purchase service refuses the confirm (not carried out): the vend failed for
  // good, and the refund is held at the payment provider.
  await world.arm('confirm', 'provider_unavailable', 1);
  await paying.armPayment('refund', 'slow', 1, HOLD_MS);
  await buy(world, route, F, { label });
  await paying.paymentFaultsSpent('F: the refund held at the provider');
  await paying.paymentIn(F, ['refund_requested']);
  // G: the payer declines (the purchase ends unpaid), then the money comes after all; its refund held.
  await paying.sandbox('/sandbox/payers/manual', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ msisdn: G }),
  });
  await buy(world, route, G, { label });
  const [prompt] = await until('G: the PIN prompt', async () => {
    const { prompts } = await paying.sandbox<{ prompts: { id: string }[] }>(`/sandbox/prompts?msisdn=${G}`);
    return prompts.length > 0 ? prompts : null;
  });
  await paying.sandbox(`/sandbox/prompts/${prompt.id}/decline`, { method: 'POST' });
  await paying.paymentIn(G, ['failed']);
  await until('G: the purchase ended unpaid', async () => (await paying.purchaseOf(G)).state === 'failed');
  await paying.armPayment('refund', 'slow', 1, HOLD_MS);
  await paying.sandbox(`/sandbox/payments/${prompt.id}/late-success`, { method: 'POST' });
  await paying.paymentFaultsSpent('G: the late refund held at the provider');
  // E: the token SMS held at the SMS provider (everything sent from now on hangs there).
  world.sink.mode = { kind: 'hang' };
  const held = world.sink.hits.length;
  await buy(world, route, E, { label });
  await until('E: the token SMS held', () => world.sink.hits.slice(held).some((hit) => hit.to === E));
  // B: the collect answered, its callback dropped: the kill comes before the first status query.
  await paying.armPayment('callback', 'drop', 1);
  await buy(world, route, B, { label });
  await paying.paymentFaultsSpent('B: the callback dropped');
  await paying.paymentIn(B, ['pending']);
  // C: killed right after the gateway answered its callback 200.
  await buy(world, route, C, { label });
  const paidC = await until(
    'C: the callback answered 200',
    async () => {
      const mine = (await paying.sandboxPayments()).find((p) => p.msisdn === C);
      const delivered = mine && (await paying.deliveries()).find((d) => d.id === mine.id && d.status === 200);
      return delivered ?? null;
    },
    { everyMs: 5 },
  );
  await Promise.all([gateway.kill(), worker?.kill()]);

  // Where each buyer was when the processes died (purchase/payment state), for the table.
  const steps = Object.entries({ B, C, D, E, F, G, P }).filter(([, phone]) => phones.includes(phone));
  const at: string[] = [];
  for (const [step, phone] of steps) {
    const purchase = await paying.purchaseOf(phone);
    at.push(`${step} ${purchase.state}/${(await paying.store.getByPurchase(purchase.id))?.state}`);
  }
  world.sink.recover();
  await gateway.start();
  await worker?.start();
  const backAt = Date.now();

  // Callbacks across the restart, duplicated and out of order: C's success again, then a
  // "cancelled by the user" for the same prompt, and G's decline again after its success.
  const callback = `${callbackBase}/payments/callback/payment?key=${CALLBACK_SECRET}`;
  const gDecline = (await paying.deliveries()).find(
    (d) => d.id === prompt.id && d.kind === 'payment' && JSON.stringify(d.body).match(/1032|FAILED/),
  );
  for (const body of [paidC.body, cancelled(paidC.body), gDecline?.body]) {
    if (!body) continue;
    const answer = await fetch(callback, {
      method: layout.provider === 'momo' ? 'PUT' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
  }

  const row = await judge(
    world,
    `payment (${layout.provider}${layout.split ? ', gateway + worker' : ', gateway'}): SIGKILL at every step`,
    phones,
    () => backAt,
    {
      ...SETTLED,
      note: `killed at ${at.join(', ')}; callbacks replayed out of order`,
    },
  );
  // C's confirm had left before the kill, or not: sold, or failed (no charge found) and refunded.
  const cSold = await paying.debitedAtTheService(C);
  if (!cSold) {
    const purchase = await paying.purchaseOf(C);
    expect({ state: purchase.state, charged: purchase.failure?.charged }).toEqual({
      state: 'failed',
      charged: false,
    });
    row.note = `${row.note ?? ''}; C's confirm had not left: failed, no charge, refunded`;
  }
  const refunded = cSold ? [F, G] : [C, F, G];
  // The refunds: F and G (and an unsold C) end refunded and told so.
  for (const phone of refunded)
    await until(
      `${phone}: refunded and told`,
      async () =>
        (await paying.paymentStateOf(phone)) === 'refunded' &&
        world.sink.acceptedTo(phone).some((hit) => /has been returned/.test(hit.message)),
      { timeoutMs: 60_000 },
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}: payment ${await paying.paymentStateOf(phone)}; ` +
          `refunds at the provider ${JSON.stringify(await paying.sandboxRefunds())}; ` +
          `refund callbacks ${JSON.stringify((await paying.deliveries()).filter((d) => d.kind === 'refund'))}`,
      );
    });
  table.add(row);
  await paying.checkTheMoney(phones, {
    refunded,
    delivered: [B, ...(cSold ? [C] : []), D, E, ...(phones.includes(P) ? [P] : [])],
  });
  if (worker) await worker.stop();
  await gateway.stop();
}

/** A Daraja or MoMo success body turned into the payer's cancel of the same prompt. */
function cancelled(body: unknown): unknown {
  const daraja = (body as { Body?: { stkCallback?: Record<string, unknown> } }).Body?.stkCallback;
  if (daraja) {
    const { CallbackMetadata: _paid, ...rest } = daraja;
    return { Body: { stkCallback: { ...rest, ResultCode: 1032, ResultDesc: 'Request cancelled by user.' } } };
  }
  const { financialTransactionId: _id, ...momo } = body as Record<string, unknown>;
  return { ...momo, status: 'FAILED', reason: 'APPROVAL_REJECTED' };
}

it(
  'M-Pesa, the gateway running the workers: SIGKILL with a buyer at every step, then restarted',
  () => killAtEveryStep({ provider: 'mpesa', split: false }),
  300_000,
);

it(
  'MoMo, a gateway and a separate worker: both SIGKILLed with a buyer at every step, then restarted',
  () => killAtEveryStep({ provider: 'momo', split: true }),
  300_000,
);
