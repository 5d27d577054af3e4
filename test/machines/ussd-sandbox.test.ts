/**
 * The dialogue against the real purchase-service client and the embedded sandbox over real
 * HTTP: the catalogue, account and validate answers the machine sees in production.
 * `order` is a plain in-memory function here (the purchase lifecycle is tested elsewhere).
 */
import { OPT, type DialogueServices } from '../../machines/ussd-session.machine';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { SANDBOX_CREDENTIALS, TEST_METERS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import { createPurchaseService, type PurchaseService } from '../../src/vas';
import { Dialogue, INPUT, LANGUAGES, choose, record, text } from '../../machines/ussd/test-kit';

let sandbox: RunningSandbox;
let service: PurchaseService;
let seq = 0;
const ctx = () => ({ requestId: `ussd-machine-test-${(seq += 1)}` });

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  service = createPurchaseService({
    baseUrl: sandbox.url,
    interface: 'v1',
    ...SANDBOX_CREDENTIALS,
    timeoutMs: 3000,
    confirmTimeoutMs: 5000,
  });
});
afterAll(async () => {
  await sandbox.close();
});

function live(): { services: DialogueServices; orders: Array<{ intent: PurchaseIntent; key: string }> } {
  const orders: Array<{ intent: PurchaseIntent; key: string }> = [];
  return {
    orders,
    services: {
      products: () => service.listProducts(ctx()),
      debitAccount: async () => {
        const accounts = await service.listAccounts(ctx());
        const current = accounts.find((a) => a.category === 'CURRENT');
        if (!current) throw new Error('no CURRENT account');
        return current;
      },
      quote: (req) => service.validate(req, ctx()),
      order: async (intent, key): Promise<PurchaseRecord> => {
        orders.push({ intent, key });
        return { ...record('p-live', intent, '2026-11-22T00:00:00.000Z'), state: 'created' };
      },
      resend: async () => undefined,
      languages: () => LANGUAGES,
      defaultRegion: 'BW',
      maxIdentifierTries: 3,
      askTokenRecipient: false,
    },
  };
}

async function start(): Promise<{ d: Dialogue; orders: Array<{ intent: PurchaseIntent; key: string }> }> {
  const { services, orders } = live();
  const d = new Dialogue(services, true);
  await d.start();
  return { d, orders };
}

it('buys electricity for an active test meter, showing the provider-verified name', async () => {
  const { d, orders } = await start();
  expect(d.options.slice(0, 3)).toEqual(['product:ELECTRICITY', 'product:AIRTIME', 'product:WATER']);
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(TEST_METERS.active));
  await d.send(text('100'));
  expect(d.state).toBe('quote');
  expect(d.screen.body).toEqual([{ literal: expect.stringMatching(/\w/) }]);
  const keep = d.screen.keep ?? [];
  expect(keep[0]).toEqual({ literal: TEST_METERS.active });
  expect(keep).toContainEqual({ key: 'quote.line.amount', params: { amount: 'BWP 100.00' } });
  expect(keep.at(-1)).toEqual({
    key: 'quote.line.total',
    params: { total: expect.stringMatching(/^BWP \d+\.\d{2}$/) },
  });
  await d.send(choose(OPT.buy));
  expect(d.state).toBe('done');
  expect(orders).toHaveLength(1);
  expect(orders[0]).toMatchObject({
    key: `${INPUT.aggregator}:${INPUT.sessionId}:${INPUT.startedAt}`,
    intent: { subscriberIdentifier: TEST_METERS.active, channel: 'USSD', requesterMsisdn: INPUT.msisdn },
  });
});

it.each([
  [TEST_METERS.notFound, 'reason.meter_not_found'],
  [TEST_METERS.blocked, 'reason.meter_blocked'],
])('meter %s is refused by the service: back to the identifier with %s', async (meter, reason) => {
  const { d } = await start();
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(meter));
  await d.send(text('100'));
  expect(d.state).toBe('identifier');
  expect(d.body[0]).toBe(reason);
});

it('an amount below the minimum vend goes back to the amount', async () => {
  const { d } = await start();
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(TEST_METERS.fixedCharge));
  await d.send(text('50'));
  expect(d.state).toBe('amount');
  // The sandbox's message carries the meter's minimum: the screen names it.
  expect(d.screen.body[0]).toEqual({
    key: 'reason.amount_below_minimum.moreThan',
    params: { limit: 'BWP 1000.00' },
  });
});

it('a fixed charge eating the amount is said on the quote (BWP 1001 for well under 1 kWh)', async () => {
  const { d } = await start();
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(TEST_METERS.fixedCharge));
  await d.send(text('1001'));
  expect(d.state).toBe('quote');
  expect(d.screen.keep?.at(-1)).toEqual({ key: 'quote.deducted', params: { deducted: 'BWP 1000.00' } });
});

it("the debt scenario ends with the provider's own words", async () => {
  const { d } = await start();
  await d.send(choose(OPT.product('ELECTRICITY')));
  await d.send(text(TEST_METERS.debtFirst));
  await d.send(text('100'));
  expect(d.state).toBe('refused');
  expect(d.screen.body).toEqual([
    { key: 'reason.provider_refused', params: { message: 'Purchase only allowed once the debt is paid' } },
  ]);
});

it('airtime for another number typed in local form', async () => {
  const { d } = await start();
  await d.send(choose(OPT.product('AIRTIME')));
  await d.send(choose(OPT.provider('MASCOM')));
  await d.send(choose(OPT.other));
  await d.send(text('71234567'));
  await d.send(text('20'));
  expect(d.state).toBe('quote');
  expect(d.screen.keep?.[0]).toEqual({ key: 'quote.line.airtimeFor', params: { identifier: '26771234567' } });
});
