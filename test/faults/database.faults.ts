import { Queue } from 'bullmq';
import { NodeProcess } from '../support/node-process';
import { TcpProxy } from '../support/tcp-proxy';
import { until } from '../support/wait';
import { hop } from '../e2e/harness';
import { buy, FaultTable, judge, phoneFor, World } from './harness';
import { PaymentWorld, type Provider } from './payment-world';

/**
 * PostgreSQL away under paid purchases (#36 §4), in the production layout: a gateway and a
 * separate worker on Redis, paying through a payment sandbox, the records behind a TCP proxy the
 * test cuts for OUTAGE_MS — every connection reset and every new one refused, what a failover or
 * a restart does to the clients. Each buyer is first brought to its step (an observable
 * condition each), then the records go away, the held answers land in the outage, and:
 *
 *   A  dials and buys while the records are away: answered politely, nothing taken; buys after
 *   B  the push's answer comes in the outage (held at the provider), and then its callback
 *   C  the payment callback comes in the outage (the push's answer was written)
 *   D  paid, the confirm in flight: the purchase service answers in the outage (the outcome's write)
 *   E  paid, its confirm job runs in the outage and spends its attempts
 *   F  sold, its token SMS held at the SMS provider, let go in the outage
 *   G  paid, the vend failed for good, the refund in flight: its answer comes in the outage
 *   H  asks for a quote by SMS in the outage: answered once the records are back, then buys
 *
 * Then every buyer ends with a token SMS or the money returned, no confirm twice, no refund of
 * a vended purchase, collected − refunded = what the purchase service was paid.
 */

const CALLBACK_SECRET = 'faults-database-callback-key';
const OUTAGE_MS = 25_000;
/** The answers held at the providers: sent before the cut, answered inside the outage. */
const HOLD_MS = 18_000;
const SETTLED = { timeoutMs: 150_000 };

const world = new World();
const paying = new PaymentWorld(world, CALLBACK_SECRET);
const table = new FaultTable(__filename);
const proxy = TcpProxy.forUrl(world.records.env.DATABASE_URL);
const processes: NodeProcess[] = [];

beforeAll(async () => {
  await world.start();
  await paying.start();
  await proxy.start();
});
afterAll(async () => {
  table.write();
  proxy.restore();
  for (const process of processes) await process.stop();
  await proxy.close();
  await paying.close();
  await world.close();
});
afterEach(() => proxy.restore());

/** An inbound SMS from `phone` (Africa's Talking's form), acknowledged by the gateway. */
async function sms(gateway: NodeProcess, phone: string, text: string, id: string): Promise<void> {
  const answer = await fetch(`${gateway.url}/sms/africastalking`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, from: `+${phone}`, to: '12345', text, date: 'now' }),
  });
  expect({ inbound: answer.status }).toEqual({ inbound: 200 });
}

/** The purchase jobs' queue, as the gateway names it on this world's Redis. */
function purchaseQueue(): Queue {
  const { hostname, port } = new URL(world.redisServer.url);
  return new Queue('purchases', {
    connection: { host: hostname, port: Number(port) },
    prefix: `${world.prefix}-bull`,
  });
}

async function outageAtEveryStep(provider: Provider): Promise<void> {
  const env = world.gatewayEnv({
    ...paying.providerEnv(provider),
    DATABASE_URL: proxy.urlFor(world.records.env.DATABASE_URL),
    GATEWAY_WORKERS: 'false',
    // D's confirm is held at the service: the client waits for it.
    PURCHASE_API_CONFIRM_TIMEOUT_MS: String(HOLD_MS + 10_000),
    PAYMENT_TIMEOUT_MS: String(HOLD_MS + 10_000),
  });
  const gateway = new NodeProcess('src/main.ts', env);
  const callbackBase = await gateway.reserveUrl();
  env.PAYMENT_CALLBACK_BASE_URL = callbackBase;
  const worker = new NodeProcess('src/worker.ts', env);
  processes.push(gateway, worker);
  await gateway.start();
  await worker.start();
  const route = () => gateway;
  const label = `pg-${provider}`;
  const [A, B, C, D, E, F, G, H] = Array.from({ length: 8 }, () => phoneFor());
  const jobs = purchaseQueue();
  try {
    // F: sold, its token SMS held at the SMS provider (everything sent from now on hangs there).
    world.sink.mode = { kind: 'hang' };
    const held = world.sink.hits.length;
    await buy(world, route, F, { label });
    await until('F: the token SMS held', () => world.sink.hits.slice(held).some((hit) => hit.to === F));
    // C: the push answered and written, the payer approves only in the outage.
    await paying.manual(C);
    await buy(world, route, C, { label });
    const promptC = await paying.promptOf(C);
    await paying.paymentIn(C, ['pending']);
    // G: paid, the confirm refused (not carried out): failed for good, the refund held.
    await world.arm('confirm', 'provider_unavailable', 1);
    await paying.armPayment('refund', 'slow', 1, HOLD_MS);
    await buy(world, route, G, { label });
    await paying.paymentFaultsSpent('G: the refund held at the provider');
    // D: paid, the confirm held at the purchase service.
    await world.arm('confirm', 'slow', 1, HOLD_MS);
    await buy(world, route, D, { label });
    await world.faultsSpent();
    // E: paid while the confirm jobs wait (the queue paused): its job runs only in the outage.
    await jobs.pause();
    await buy(world, route, E, { label });
    await paying.paymentIn(E, ['successful']);
    // B: the push carried out at once, its answer held: it comes in the outage.
    await paying.manual(B);
    await paying.armPayment('collect', 'slow', 1, HOLD_MS);
    await buy(world, route, B, { label });
    const promptB = await paying.promptOf(B);

    proxy.cut();
    const cutAt = Date.now();
    await jobs.resume();
    await paying.post(`/sandbox/prompts/${promptC.id}/approve`);
    await paying.post(`/sandbox/prompts/${promptB.id}/approve`);
    world.sink.recover();
    await sms(gateway, H, `ELEC ${world.meter()} 100`, `${label}-${H}-quote`);
    // A dials and buys while the records are away: a polite answer, and nothing is taken.
    const session = `${label}-away-${A}`;
    const typed: string[] = [];
    let last = await hop(gateway, session, A, '');
    for (const input of ['1', world.meter(), '1', '100', '1']) {
      if (last.end) break;
      typed.push(input);
      last = await hop(gateway, session, A, typed.join('*'));
    }
    expect(last).toMatchObject({ status: 200, end: true });
    expect(last.screen).toMatch(/try again/i);
    expect(await paying.sandboxPayments()).not.toContainEqual(expect.objectContaining({ msisdn: A }));
    // Daraja and MoMo send a callback once: each was answered 200, being kept.
    const answered = await until('the callbacks of the outage answered', async () => {
      const mine = (await paying.sandboxPayments()).filter((p) => p.msisdn === B || p.msisdn === C);
      const delivered = (await paying.deliveries()).filter(
        (d) => d.kind === 'payment' && mine.some((p) => p.id === d.id) && d.status !== null,
      );
      return delivered.length >= 2 ? delivered : null;
    });
    expect(answered.map((d) => d.status)).toEqual([200, 200]);
    // The outage lasts what a failover costs, whatever came first.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - cutAt))));
    proxy.restore();
    const backAt = Date.now();

    // A buys now that the records are back; H's quote comes, and H buys with its code.
    await buy(world, route, A, { label });
    const quote = await until('H: the quote SMS', () =>
      world.sink.acceptedTo(H).find((hit) => /YES \d{4}/.test(hit.message)),
    );
    await sms(gateway, H, `YES ${/YES (\d{4})/.exec(quote.message)![1]}`, `${label}-${H}-yes`);
    const phones = [A, B, C, D, E, F, G, H];
    const row = await judge(
      world,
      `PostgreSQL away ${OUTAGE_MS / 1000} s (${provider}, gateway + worker)`,
      phones,
      () => backAt,
      {
        ...SETTLED,
        allowDuplicateSms: true,
        note: 'A bought in the outage (refused politely) and after; B push answer and callback, C callback, D confirm answer, E confirm job, F token SMS, G refund answer, H SMS quote in the outage',
      },
    );
    await until(
      'G: refunded and told',
      async () =>
        (await paying.paymentStateOf(G)) === 'refunded' &&
        world.sink.acceptedTo(G).some((hit) => /has been returned/.test(hit.message)),
      { timeoutMs: 60_000 },
    );
    table.add(row);
    await paying.checkTheMoney(phones, { refunded: [G], delivered: [A, B, C, D, E, F, H] });
  } finally {
    await jobs.resume().catch(() => undefined);
    await jobs.close();
    await worker.stop();
    await gateway.stop();
  }
}

it(
  'M-Pesa: PostgreSQL away with a buyer at every step of a paid purchase',
  () => outageAtEveryStep('mpesa'),
  300_000,
);

it(
  'MoMo: PostgreSQL away with a buyer at every step of a paid purchase',
  () => outageAtEveryStep('momo'),
  300_000,
);
