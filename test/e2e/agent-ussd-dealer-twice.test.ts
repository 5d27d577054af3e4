import type { Gateway } from '../../src/gateway/app';
import type { TestDatabase } from '../support/database';
import { until } from '../support/wait';
import { dealerKit } from './dealer-kit';
import { dialogue, hop, newPhone, waitForSms } from './harness';

/**
 * Issue 32: two transfers of the same amount to the same retailer in one USSD dialogue are two
 * transfers. The first Send runs out of the hop's time (the dealer's float row held by another
 * transaction) and is applied once that lets go; the dealer cancels (told it may have been made), starts Transfer float again
 * with the same retailer and amount, and it moves again: each side gets two SMS. The last hop sent
 * again (the aggregator's retry) moves nothing more.
 */

const kit = dealerKit('agent-ussd-dealer-twice-admin-token');
let records: TestDatabase;
let gateway: Gateway;

beforeAll(async () => {
  ({ gateway, records } = await kit.startOnRecords('dealer_twice', {
    USSD_HOP_BUDGET_MS: '2000',
    PURCHASE_API_TIMEOUT_MS: '1500',
  }));
});
afterAll(() => gateway.close());

const agent = (msisdn: string, name: string, dealer?: string) => kit.agent(gateway, msisdn, name, { dealer });
const floatOf = (msisdn: string) => kit.floatOf(gateway, msisdn);

it('the same amount to the same retailer twice in one dialogue moves twice; the last hop again moves nothing more', async () => {
  const dealer = newPhone();
  const shop = newPhone();
  await agent(dealer, 'Dealer Ltd');
  await agent(shop, 'Kgosi Shop', dealer);
  await kit.credit(gateway, dealer, 'BWP 1000.00', `d-${dealer}`);
  const session = `twice-${dealer}`;
  const typed = ['5937', '9', '1', '1', '300'];
  const confirm = await dialogue(gateway, session, dealer, typed);
  expect(confirm[5].screen).toMatch(/^Send BWP 300.00 to Kgosi Shop/);

  // The dealer's float row held elsewhere: the first Send outlasts the hop.
  let letGo!: () => void;
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => (held = resolve));
  const holding = records.db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM float_accounts WHERE msisdn = $1 FOR UPDATE', [dealer]);
    held();
    await new Promise<void>((resolve) => (letGo = resolve));
  });
  await isHeld;
  typed.push('1');
  const slow = await hop(gateway, session, dealer, typed.join('*'));
  expect(slow.end).toBe(false);
  expect(slow.screen).toMatch(/^This is taking longer than expected\. Please try again\.\nSend BWP 300.00/);
  letGo();
  await holding;
  // The first transfer goes through once the row is free.
  await until('the first transfer applied', async () => (await floatOf(dealer)) === 70000);

  // Cancel says the transfer may have been made (it was), then a new transfer of the same amount.
  typed.push('2');
  const cancelled = await hop(gateway, session, dealer, typed.join('*'));
  expect(cancelled.screen).toBe(
    [
      'The transfer may already have been made. Check the floats (2) before sending again.',
      'My retailers:',
      '1 Transfer float',
      "2 Floats and today's sales",
      '3 Add retailer',
      '0 Back',
      '00 Home',
    ].join('\n'),
  );
  for (const input of ['1', '1', '300']) {
    typed.push(input);
    await hop(gateway, session, dealer, typed.join('*'));
  }
  typed.push('1');
  const sent = await hop(gateway, session, dealer, typed.join('*'));
  expect(sent).toMatchObject({ end: true });
  expect(sent.screen).toBe('Sent BWP 300.00 to Kgosi Shop. Your float: BWP 400.00. An SMS confirms.');
  expect([await floatOf(dealer), await floatOf(shop)]).toEqual([40000, 60000]);

  // Each side told of each transfer (the PIN's SMS first).
  const shopSms = (await waitForSms(gateway, shop, 3)).map((s) => s.message);
  expect(shopSms.slice(0, 2)).toEqual([
    'Dealer Ltd sent you BWP 300.00 of float. Your float: BWP 600.00.',
    'Dealer Ltd sent you BWP 300.00 of float. Your float: BWP 300.00.',
  ]);
  const dealerSms = (await waitForSms(gateway, dealer, 3)).map((s) => s.message);
  expect(dealerSms.slice(0, 2)).toEqual([
    `Sent BWP 300.00 to Kgosi Shop (${shop}). Your float: BWP 400.00.`,
    `Sent BWP 300.00 to Kgosi Shop (${shop}). Your float: BWP 700.00.`,
  ]);

  // The last hop sent again: the same answer, nothing moved, no SMS more.
  const again = await hop(gateway, session, dealer, typed.join('*'));
  expect(again.screen).toBe(sent.screen);
  expect([await floatOf(dealer), await floatOf(shop)]).toEqual([40000, 60000]);
  expect(await waitForSms(gateway, shop, 3)).toHaveLength(3);
});
