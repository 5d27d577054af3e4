import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { dealerKit } from './dealer-kit';
import { dialogue, hop, newPhone, waitForSms, type Reply } from './harness';

/**
 * A dealer adds a retailer over USSD (issue 32 §3) on gateways, in English and in Setswana:
 * My retailers → Add retailer → number, name, confirmation. DEALER_REGISTRATION=approve (the
 * default): the request waits, once however often the hop is sent, until `agent
 * approve-registration` registers the retailer once (its one-time PIN printed once, never in an
 * SMS); direct: registered at once, and the retailer sells once the operator's one-time PIN is
 * replaced by its own. Refused: the dealer's own number, an agent, a blocked number, a number
 * already waiting. Every screen within 182 characters.
 */

const kit = dealerKit('agent-ussd-dealer-add-admin-token');
const { auth, cli } = kit;
let approving: Gateway;
let direct: Gateway;

beforeAll(async () => {
  [approving, direct] = await Promise.all([kit.start(), kit.start({ DEALER_REGISTRATION: 'direct' })]);
});
afterAll(() => Promise.all([approving.close(), direct.close()]));

/** An agent on a float with its own PIN 5937 (set by SMS); `dealer` makes it a retailer. */
const agent = (gateway: Gateway, msisdn: string, name: string, dealer?: string, language?: string) =>
  kit.agent(gateway, msisdn, name, { dealer, language });

const national = (msisdn: string) => msisdn.slice(3);
const fits = (replies: Reply[]) => replies.forEach((r) => expect(r.screen.length).toBeLessThanOrEqual(182));
const status = async (gateway: Gateway, msisdn: string) =>
  (await axios.get(`${gateway.url}/admin/agents/${msisdn}`, { ...auth, validateStatus: () => true })).status;

it('English, approve: the request waits (once, however often sent) until approve-registration registers it once', async () => {
  const dealer = newPhone();
  await agent(approving, dealer, 'Dealer Ltd');
  await agent(approving, newPhone(), 'First Shop', dealer);
  const shop = newPhone();

  const r = await dialogue(approving, `add-${shop}`, dealer, [
    '5937',
    '9',
    '3',
    national(shop),
    'Mpho Shop',
    '1',
  ]);
  fits(r);
  expect(r[2].screen).toMatch(/\n3 Add retailer/);
  expect(r[3].screen).toMatch(/^Retailer's phone number:/);
  expect(r[4].screen).toMatch(/^Retailer's name \(shop\):/);
  expect(r[5].screen).toMatch(/^Add Mpho Shop 267\*+\d{4} as your retailer\?\n1 Add\n2 Cancel/);
  expect(r[6]).toMatchObject({ end: true });
  expect(r[6].screen).toBe(
    'Request sent: Mpho Shop is registered once the operator approves it. An SMS tells you.',
  );
  // The last hop sent again: the same answer, one request.
  const again = await hop(
    approving,
    `add-${shop}`,
    dealer,
    ['5937', '9', '3', national(shop), 'Mpho Shop', '1'].join('*'),
  );
  expect(again.screen).toBe(r[6].screen);
  // Another dialogue for the same number: it waits already.
  const twice = await dialogue(approving, `add2-${shop}`, dealer, ['5937', '9', '3', national(shop)]);
  expect(twice[4].screen).toMatch(
    /^That number already waits for the operator's approval\.\nRetailer's phone number:/,
  );

  const listed = await cli(approving, ['registrations', '--reveal']);
  const mine = listed.out.split('\n').filter((l) => l.includes(shop));
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatch(/Mpho Shop.*pending/);
  expect(await status(approving, shop)).toBe(404);
  const id = mine[0].trim().split(/\s+/)[0];

  const approved = await cli(approving, ['approve-registration', '--id', id]);
  expect(approved.code).toBe(0);
  const otp = /one-time PIN: (\d{6})/.exec(approved.out)![1];
  const second = await cli(approving, ['approve-registration', '--id', id]);
  expect(second).toMatchObject({ code: 1 });
  expect(second.out).toMatch(/was approved before: nothing changed/);

  const registered = (await axios.get(`${approving.url}/admin/agents/${shop}?reveal=true`, auth)).data.agent;
  expect(registered).toMatchObject({ name: 'Mpho Shop', dealerMsisdn: dealer, mustChangePin: true });
  const [toDealer] = await waitForSms(approving, dealer, 2);
  expect(toDealer.message).toBe(
    `Mpho Shop (${shop}) is registered as your retailer. The operator gives it its first PIN.`,
  );
  const toShop = await waitForSms(approving, shop, 1);
  expect(toShop).toHaveLength(1);
  expect(toShop[0].message).toMatch(/^You are registered as an agent under Dealer Ltd\./);
  expect(toShop[0].message).not.toContain(otp);
  // The retailer replaces the one-time PIN and reaches the agent menu.
  const first = await dialogue(approving, `otp-${shop}`, shop, [otp, '4826', '4826']);
  expect(first[3].screen).toMatch(/^Your PIN is changed/);
});

it('Setswana, direct: registered at once, told by SMS; the retailer sells after its PIN; refusals named', async () => {
  const dealer = newPhone();
  const other = newPhone();
  const blocked = newPhone();
  await agent(direct, dealer, 'Dealer Tn', undefined, 'tn');
  await agent(direct, newPhone(), 'Tau Shop', dealer);
  await agent(direct, other, 'Other');
  await axios.post(`${direct.url}/admin/blocklist`, { kind: 'msisdn', value: blocked }, auth);
  await dialogue(direct, `tl-${dealer}`, dealer, ['5937', '7', '2']); // Setswana, from now on

  const refused = await dialogue(direct, `tr-${dealer}`, dealer, [
    '5937',
    '9',
    '3',
    'abc',
    national(dealer),
    national(other),
    national(blocked),
  ]);
  fits(refused);
  expect(refused[2].screen).toMatch(/\n3 Kwadisa morekisi/);
  expect(refused[4].screen).toMatch(/^Kwala nomoro ya selekgofa/);
  expect(refused[5].screen).toMatch(/^Ga o kgone go kwadisa nomoro ya gago\./);
  expect(refused[6].screen).toMatch(/^Nomoro eo e setse e le ya moemedi\./);
  expect(refused[7].screen).toMatch(/^Nomoro eo ga e kgone go kwadisiwa\./);
  expect(await status(direct, blocked)).toBe(404);

  const shop = newPhone();
  const steps = ['5937', '9', '3', national(shop), 'Mpho Shop', '1'];
  const r = await dialogue(direct, `ta-${shop}`, dealer, steps);
  fits(r);
  expect(r[5].screen).toMatch(
    /^Kwadisa Mpho Shop 267\*+\d{4} jaaka morekisi wa gago\?\n1 Kwadisa\n2 Khansela/,
  );
  expect(r[6].screen).toBe(
    'Mpho Shop o kwadisitswe jaaka morekisi wa gago. Mokgatlho o tla mo naya PIN ya ntlha. SMS e tla go itsise.',
  );
  expect((await hop(direct, `ta-${shop}`, dealer, steps.join('*'))).screen).toBe(r[6].screen);
  expect(
    (await axios.get(`${direct.url}/admin/agents/${shop}?reveal=true`, auth)).data.agent.dealerMsisdn,
  ).toBe(dealer);
  const registrations = (
    await axios.get(`${direct.url}/admin/agents/registrations?state=all&reveal=true`, auth)
  ).data.registrations as Array<{ msisdn: string; state: string; decidedBy: string }>;
  expect(registrations.filter((x) => x.msisdn === shop)).toEqual([
    expect.objectContaining({ state: 'approved', decidedBy: `dealer:${dealer}` }),
  ]);
  expect((await waitForSms(direct, dealer, 2))[0].message).toMatch(
    /^Mpho Shop \(\d+\) o kwadisitswe jaaka morekisi wa gago\./,
  );
  const welcome = await waitForSms(direct, shop, 1);
  expect(welcome).toHaveLength(1);
  expect(welcome[0].message).toMatch(/^O kwadisitswe jaaka moemedi wa Dealer Tn\./);

  // Onboarding as for any agent: the operator's one-time PIN, replaced by the retailer's own.
  const otp = (await axios.post(`${direct.url}/admin/agents/${shop}/reset-pin`, {}, auth)).data.oneTimePin;
  expect((await dialogue(direct, `tp-${shop}`, shop, [otp, '4826', '4826']))[3].screen).toMatch(
    /^Your PIN is changed/, // its screens: its own language choice (none yet)
  );
  await kit.credit(direct, shop, 'BWP 200.00', `c-${shop}`);
  const customer = newPhone();
  const sale = await dialogue(direct, `ts-${shop}`, shop, [
    '4826',
    '1',
    TEST_METERS.active,
    '100',
    customer,
    '1',
  ]);
  expect(sale[6]).toMatchObject({ end: true });
  expect((await waitForSms(direct, shop, 2))[0].message).toMatch(/^Sale /);
});
