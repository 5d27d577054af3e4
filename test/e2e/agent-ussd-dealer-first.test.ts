import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { dealerKit } from './dealer-kit';
import { dialogue, newPhone, waitForSms } from './harness';

/**
 * A dealer before its first retailer (issue 32 §3), on a gateway with DEALER_REGISTRATION=direct:
 * a plain agent has no "My retailers"; the operator's `agent set-dealer --on` gives it one, whose
 * empty list says so and offers Add retailer; the dealer adds its first retailer by USSD and
 * transfers float to it. `AGENTS <PIN>` tells a dealer with no retailer where to add one. Turning
 * the dealer off is refused once a retailer names it.
 */

const kit = dealerKit('agent-ussd-dealer-first-admin-token');
const { auth } = kit;
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await kit.start({ DEALER_REGISTRATION: 'direct' });
});
afterAll(() => gateway.close());

const sms = (from: string, text: string) =>
  axios.post(`${gateway.url}/sms/inbound`, {
    id: `first-${from}-${++seq}`,
    from,
    to: '1',
    text,
    receivedAt: 'now',
  });

const cli = (argv: string[]) => kit.cli(gateway, argv);
const floatOf = (msisdn: string) => kit.floatOf(gateway, msisdn);

it('an operator makes an agent a dealer; it adds its first retailer by USSD and transfers float to it', async () => {
  const dealer = newPhone();
  await kit.agent(gateway, dealer, 'New Dealer');
  await kit.credit(gateway, dealer, 'BWP 500.00', `f-${dealer}`);

  // Not a dealer yet: no "My retailers", and AGENTS says it has nobody.
  expect((await dialogue(gateway, `f0-${dealer}`, dealer, ['5937']))[1].screen).not.toMatch(/My retailers/);
  await sms(dealer, 'AGENTS 5937');
  expect((await waitForSms(gateway, dealer, 2))[0].message).toBe('You have no retailers or assistants.');

  const on = await cli(['set-dealer', '--msisdn', dealer, '--on', '--reveal']);
  expect(on).toMatchObject({ code: 0, out: `${dealer}  a dealer` });
  await sms(dealer, 'AGENTS 5937');
  expect((await waitForSms(gateway, dealer, 3))[0].message).toBe(
    'You are a dealer with no retailers yet. Add one on the agent menu: My retailers > Add retailer.',
  );

  // The dial: My retailers, an empty list saying so with Add retailer, then the first retailer.
  const shop = newPhone();
  const r = await dialogue(gateway, `f1-${dealer}`, dealer, [
    '5937',
    '9',
    '2',
    '1',
    shop.slice(3),
    'First Shop',
    '1',
  ]);
  r.forEach((reply) => expect(reply.screen.length).toBeLessThanOrEqual(182));
  expect(r[1].screen).toMatch(/\n9 My retailers/);
  expect(r[3].screen).toMatch(/^You have no retailers\.\n1 Add retailer/);
  expect(r[4].screen).toMatch(/^Retailer's phone number:/);
  expect(r[6].screen).toMatch(/^Add First Shop 267\*+\d{4} as your retailer\?\n1 Add\n2 Cancel/);
  expect(r[7]).toMatchObject({ end: true });
  expect(r[7].screen).toMatch(/^First Shop is registered as your retailer\./);
  const retailer = (await axios.get(`${gateway.url}/admin/agents/${shop}?reveal=true`, auth)).data.agent;
  expect(retailer).toMatchObject({ name: 'First Shop', dealerMsisdn: dealer });
  expect((await waitForSms(gateway, shop, 1))[0].message).toMatch(
    /^You are registered as an agent under New Dealer\./,
  );
  await waitForSms(gateway, dealer, 4);

  // Transfer float to it: chosen from the list that now holds it.
  const t = await dialogue(gateway, `f2-${dealer}`, dealer, ['5937', '9', '1', '1', '120', '1']);
  expect(t[3].screen).toMatch(/\n1 First Shop 267\*+\d{4}/);
  expect(t[6].screen).toBe('Sent BWP 120.00 to First Shop. Your float: BWP 380.00. An SMS confirms.');
  expect((await waitForSms(gateway, shop, 2))[0].message).toBe(
    'New Dealer sent you BWP 120.00 of float. Your float: BWP 120.00.',
  );
  expect([await floatOf(dealer), await floatOf(shop)]).toEqual([38000, 12000]);

  // Its retailer names it: it stays a dealer.
  const off = await cli(['set-dealer', '--msisdn', dealer, '--off']);
  expect(off.code).toBe(1);
  expect(off.err).toMatch(/1 retailer/);
  expect((await axios.get(`${gateway.url}/admin/agents/${dealer}`, auth)).data.agent.dealer).toBe(true);
});
