import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { dealerKit } from './dealer-kit';
import { dialogue, newPhone, waitForSms } from './harness';

/**
 * A dealer over USSD on a gateway (issue 32), in English and in Setswana: My retailers →
 * Transfer float to a retailer (chosen, or its number typed), each side's SMS with its new
 * balance, the same hop sent again moving nothing more; the retailers with their floats and
 * today's sales after the retailer's sale; a retailer disabled from there; the commission on
 * the float screen.
 */

const kit = dealerKit('agent-ussd-dealer-admin-token');
const { auth } = kit;
let gateway: Gateway;

beforeAll(async () => {
  gateway = await kit.start({ AGENT_COMMISSION: 'ELECTRICITY:2%', AGENT_DEALER_SHARE: '25%' });
});
afterAll(() => gateway.close());

const agent = (msisdn: string, name: string, dealer?: string, language?: string) =>
  kit.agent(gateway, msisdn, name, { dealer, language });
const floatOf = (msisdn: string) => kit.floatOf(gateway, msisdn);

it('English: transfer from the list, each side told once; the retailers with float and sales; commission on the float screen; a disable', async () => {
  const dealer = newPhone();
  const shop = newPhone();
  await agent(dealer, 'Dealer Ltd');
  await agent(shop, 'Kgosi Shop', dealer);
  await kit.credit(gateway, dealer, 'BWP 1000.00', `d-${dealer}`);
  const menu = await dialogue(gateway, `dl-${dealer}`, dealer, ['5937']);
  expect(menu[1].screen).toMatch(/\n9 My retailers/);
  const replies = await dialogue(gateway, `dt-${dealer}`, dealer, ['5937', '9', '1', '1', '300', '1']);
  expect(replies[2].screen).toMatch(/^My retailers:\n1 Transfer float\n2 Floats and today's sales/);
  expect(replies[3].screen).toMatch(
    /^Send float to \(choose, or type the retailer's number\):\n1 Kgosi Shop 267\*+\d{4}/,
  );
  expect(replies[5].screen).toMatch(/^Send BWP 300.00 to Kgosi Shop 267\*+\d{4}\?\n1 Send\n2 Cancel/);
  expect(replies[6]).toMatchObject({ end: true });
  expect(replies[6].screen).toBe('Sent BWP 300.00 to Kgosi Shop. Your float: BWP 700.00. An SMS confirms.');
  expect((await waitForSms(gateway, shop, 2))[0].message).toBe(
    'Dealer Ltd sent you BWP 300.00 of float. Your float: BWP 300.00.',
  );
  expect((await waitForSms(gateway, dealer, 2))[0].message).toBe(
    `Sent BWP 300.00 to Kgosi Shop (${shop}). Your float: BWP 700.00.`,
  );
  // The last hop sent again (the aggregator's retry): the same answer, nothing moved twice.
  const again = await dialogue(gateway, `dt-${dealer}`, dealer, ['5937', '9', '1', '1', '300', '1']);
  expect(again[6].screen).toMatch(/^Sent BWP 300.00/);
  expect([await floatOf(dealer), await floatOf(shop)]).toEqual([70000, 30000]);

  // The retailer sells BWP 100.00 (commission 2%: BWP 2.00, the dealer's share 25%).
  const customer = newPhone();
  await dialogue(gateway, `ds-${shop}`, shop, ['5937', '1', TEST_METERS.active, '100', customer, '1']);
  expect((await waitForSms(gateway, shop, 3))[0].message).toMatch(/Commission: BWP 1.50/);
  const bal = await dialogue(gateway, `db-${shop}`, shop, ['5937', '4']);
  expect(bal[2].screen).toMatch(
    /^Float: BWP 200.00 available, BWP 0.00 held for sales in progress\.\nCommission today: BWP 1.50, this month: BWP 1.50\./,
  );

  const list = await dialogue(gateway, `dr-${dealer}`, dealer, ['5937', '9', '2']);
  expect(list[3].screen).toMatch(
    /^Your retailers \(float, today's sales\):\n1 Kgosi Shop: BWP 200.00, 1 sales BWP 100.00/,
  );
  const disable = await dialogue(gateway, `dd-${dealer}`, dealer, ['5937', '9', '2', '1', '1']);
  expect(disable[4].screen).toMatch(/\n1 Disable/);
  expect(disable[5].screen).toMatch(/^Retailer disabled\.\nYour retailers.*\n1 Kgosi Shop \(disabled\)/);
  expect((await axios.get(`${gateway.url}/admin/agents/${shop}`, auth)).data.agent.disabledReason).toBe(
    'dealer',
  );
});

it("Setswana: a retailer typed by its number; not the dealer's own: refused; a float too low named", async () => {
  const dealer = newPhone();
  const shop = newPhone();
  const stranger = newPhone();
  await agent(dealer, 'Dealer Tn', undefined, 'tn');
  await agent(shop, 'Tau Shop', dealer);
  await agent(stranger, 'Other');
  await kit.credit(gateway, dealer, 'BWP 50.00', `d-${dealer}`);
  // Setswana chosen once: the dialogues after it are in Setswana.
  await dialogue(gateway, `tl-${dealer}`, dealer, ['5937', '7', '2']);
  const r = await dialogue(gateway, `tt-${dealer}`, dealer, [
    '5937',
    '9',
    '1',
    stranger,
    shop,
    '80',
    '1',
    '40',
    '1',
  ]);
  // The menu is paged in Setswana (98: more); 9 still chooses My retailers.
  expect(r[2].screen).toMatch(/^Barekisi ba me:\n1 Romela madi a thekiso/);
  expect(r[4].screen).toMatch(/^Nomoro eo ga se ya mongwe wa barekisi ba gago\./);
  expect(r[5].screen).toMatch(/^Madi a o a romelang go Tau Shop/);
  expect(r[7].screen).toMatch(/^Ga a a romelwa: madi a gago ke BWP 50.00\./);
  expect(r[9].screen).toBe('O rometse BWP 40.00 go Tau Shop. Madi a gago: BWP 10.00. SMS e tla go itsise.');
  expect((await waitForSms(gateway, dealer, 2))[0].message).toMatch(/^O rometse BWP 40.00 go Tau Shop/);
  expect([await floatOf(dealer), await floatOf(shop), await floatOf(stranger)]).toEqual([1000, 4000, 0]);
});
