import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { dialogue, hop, ledger, newPhone, startTestGateway, waitForSms } from './harness';

/**
 * A field agent sells over USSD: the PIN first (never stored: the engine masks it), the agent
 * menu, electricity for a customer's number, the quote with the float after the sale, Sell →
 * the customer's token SMS, the agent's receipt, the float debited once, one sandbox debit.
 */

const ADMIN = 'agent-ussd-admin-token-0123';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway({ ADMIN_TOKEN: ADMIN, SMS_REPLIES_PER_MIN: '50' });
});
afterAll(() => gateway.close());

async function agentWithPin(msisdn: string, topUp: string, limits: object = {}): Promise<string> {
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name: 'Mma Dikeledi', float: true, ...limits },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: topUp, reference: `t-${msisdn}` },
    auth,
  );
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `pin-${msisdn}-${++seq}`,
    from: msisdn,
    to: '1',
    text: `PIN ${added.data.oneTimePin} 5937`,
    receivedAt: 'now',
  });
  expect((await waitForSms(gateway, msisdn, 1))[0].message).toBe('Your PIN is changed.');
  return '5937';
}

it('sells electricity to a customer: PIN, menu, quote with the float after, token and receipt', async () => {
  const agent = newPhone();
  const customer = newPhone();
  const pin = await agentWithPin(agent, 'BWP 300.00');
  const before = (await ledger(gateway.purchaseServiceUrl)).length;
  const replies = await dialogue(gateway, `ag-${agent}`, agent, [
    pin,
    '1',
    TEST_METERS.active,
    '100',
    customer,
    '1',
  ]);
  expect(replies[0].screen).toBe('Agent: enter your PIN:');
  expect(replies[1].screen).toMatch(
    /^Agent menu:\n1 Sell electricity\n2 Sell airtime\n3 Sell water\n4 Float balance\n5 Last sales\n6 Change PIN\n7 Language/,
  );
  expect(replies[4].screen).toMatch(/^Customer's phone number/);
  expect(replies[5].screen).toMatch(/Total: BWP 101.50\nFloat after sale: BWP 198.50\n1 Sell\n2 Cancel/);
  expect(replies[6].end).toBe(true);
  expect(replies[6].screen).toContain(`267****${customer.slice(-4)}`);
  expect((await waitForSms(gateway, customer, 1))[0].message).toMatch(/Token: /);
  const receipt = (await waitForSms(gateway, agent, 2))[0].message;
  expect(receipt).toMatch(
    /^Sale .*: Electricity 01234567890 for 267\*+\d{4}\nTotal: BWP 101.50\n[\d ]+\nFloat: BWP 198.50$/,
  );
  expect((await ledger(gateway.purchaseServiceUrl)).length).toBe(before + 1);
  const statement = (await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth)).data;
  expect(JSON.stringify(statement)).toMatch(/"derivedMinor":19850/);

  // The float screen, in a new dialogue.
  const floatScreen = await dialogue(gateway, `ag2-${agent}`, agent, [pin, '4']);
  expect(floatScreen[2].screen).toMatch(/^Float: BWP 198.50 available, BWP 0.00 held/);

  // Language: back on the agent menu, in Setswana, saying so.
  const language = await dialogue(gateway, `ag3-${agent}`, agent, [pin, '7', '2']);
  expect(language[3].screen).toMatch(/^Puo e bolokilwe\.\nLenane la moemedi:\n1 Rekisa motlakase/);
});

it('a wrong PIN says how many attempts are left; three lock the agent, over USSD and SMS alike', async () => {
  const agent = newPhone();
  await agentWithPin(agent, 'BWP 50.00');
  const first = await dialogue(gateway, `w1-${agent}`, agent, ['0000']);
  expect(first[1].screen).toMatch(/^Wrong PIN\. Attempts left: 2\.\nAgent: enter your PIN:/);
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `w-${agent}-${++seq}`,
    from: agent,
    to: '1',
    text: 'BAL 1111',
    receivedAt: 'now',
  });
  expect((await waitForSms(gateway, agent, 2))[0].message).toBe('Wrong PIN. Attempts left: 1.');
  const third = await dialogue(gateway, `w2-${agent}`, agent, ['2222']);
  expect(third[1]).toMatchObject({ end: true });
  expect(third[1].screen).toMatch(/^Too many wrong PINs: locked until \d{2}:\d{2}/);
  const again = await dialogue(gateway, `w3-${agent}`, agent, []);
  expect(again[0].end).toBe(true);
});

it('an amount over the float is refused on the amount screen, the float named; a total over it before the quote', async () => {
  const agent = newPhone();
  const pin = await agentWithPin(agent, 'BWP 20.00');
  const replies = await dialogue(gateway, `f-${agent}`, agent, [pin, '1', TEST_METERS.active, '50']);
  // Checked before the customer's number is asked; back on the amount prompt with the float named.
  expect(replies[4].screen).toMatch(/^Float too low: BWP 20.00 available\.\nEnter the amount/);
  // 19.00 fits, its total (19.00 + 1.50 charges) does not: refused before a quote is shown.
  const total = await dialogue(gateway, `ft-${agent}`, agent, [
    pin,
    '1',
    TEST_METERS.active,
    '19',
    newPhone(),
  ]);
  expect(total[4].screen).toMatch(/^Customer's phone number/);
  // Dropped on the amount prompt, then a new dial: the PIN again, never a resume offer
  // (the phone alone must not sell); then a customer's number that is no mobile number.
  const w = await dialogue(gateway, `fw-${agent}`, agent, [pin, '1', TEST_METERS.active, '19', '1']);
  expect(w[0].screen).toBe('Agent: enter your PIN:');
  const wrong = w[5];
  expect(wrong.screen).toMatch(/^That is not a valid mobile number\.\nCustomer's phone number/);
  expect(total[5].screen).toMatch(/^Float too low: BWP 20.00 available\.\nEnter the amount/);
  const statement = (await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth)).data;
  expect(statement.entries.map((e: { kind: string }) => e.kind)).toEqual(['credit']);
});

it('a non-agent number sees the subscriber menu; a disabled agent gets an END saying what to do', async () => {
  const stranger = await dialogue(gateway, `s-${newPhone()}`, newPhone(), []);
  expect(stranger[0].screen).toMatch(
    /^Welcome! Choose a service:\n1 Electricity\n2 Airtime\n3 Water\n4 My purchases/,
  );
  const agent = newPhone();
  const pin = await agentWithPin(agent, 'BWP 50.00');
  await axios.post(`${gateway.url}/admin/agents/${agent}/disable`, {}, auth);
  const disabled = await dialogue(gateway, `d-${agent}`, agent, []);
  expect(disabled[0]).toMatchObject({
    end: true,
    screen: 'Your agent account is disabled. Please contact the operator.',
  });
  // Disabled in the middle of a sale (BLOCK from another phone): nothing is sold.
  await axios.post(`${gateway.url}/admin/agents/${agent}/enable`, {}, auth);
  const session = `d2-${agent}`;
  const before = await dialogue(gateway, session, agent, [pin, '1', TEST_METERS.active]);
  expect(before[3].screen).toMatch(/^Enter the amount/);
  await axios.post(`${gateway.url}/admin/agents/${agent}/disable`, {}, auth);
  const after = await hop(gateway, session, agent, [pin, '1', TEST_METERS.active, '10'].join('*'));
  expect(after).toMatchObject({
    end: true,
    screen: 'Your agent account is disabled. Please contact the operator.',
  });
});

it('an agent disabled, BLOCKed or locked after the amount is told what happened, not the blocklist text (#27 item 4)', async () => {
  const sms = (from: string, text: string) =>
    axios.post(`${gateway.url}/sms/inbound`, {
      id: `m-${from}-${++seq}`,
      from,
      to: '1',
      text,
      receivedAt: 'now',
    });
  const before = (await ledger(gateway.purchaseServiceUrl)).length;

  // Disabled by an operator while the quote is on the screen: Sell says so, nothing is sold.
  const disabled = newPhone();
  const pin = await agentWithPin(disabled, 'BWP 50.00');
  const customer = newPhone();
  const typed = [pin, '1', TEST_METERS.active, '10', customer];
  const quote = await dialogue(gateway, `dq-${disabled}`, disabled, typed);
  expect(quote[5].screen).toMatch(/\n1 Sell\n2 Cancel/);
  await axios.post(`${gateway.url}/admin/agents/${disabled}/disable`, {}, auth);
  const sell = await hop(gateway, `dq-${disabled}`, disabled, [...typed, '1'].join('*'));
  expect(sell).toMatchObject({
    end: true,
    screen: 'Your agent account is disabled. Please contact the operator.',
  });

  // BLOCK from the agent's phone (lost handset) while a sale is on the screen.
  const blocked = newPhone();
  const pin2 = await agentWithPin(blocked, 'BWP 50.00');
  const typed2 = [pin2, '1', TEST_METERS.active, '10', newPhone()];
  await dialogue(gateway, `bq-${blocked}`, blocked, typed2);
  await sms(blocked, 'BLOCK');
  // The inbound SMS is handled after its 200: its answer says the BLOCK was applied.
  expect((await waitForSms(gateway, blocked, 2))[0].message).toMatch(/blocked/i);
  const sell2 = await hop(gateway, `bq-${blocked}`, blocked, [...typed2, '1'].join('*'));
  expect(sell2.end).toBe(true);
  expect(sell2.screen).toBe('Your agent account is blocked (BLOCK). Call the operator to unblock it.');

  // Locked by wrong PINs over SMS after the amount was accepted: the quote step says until when.
  const locked = newPhone();
  const pin3 = await agentWithPin(locked, 'BWP 50.00');
  const typed3 = [pin3, '1', TEST_METERS.active, '10'];
  await dialogue(gateway, `lq-${locked}`, locked, typed3);
  for (const wrong of ['1111', '2222', '3333']) await sms(locked, `BAL ${wrong}`);
  await waitForSms(gateway, locked, 4);
  const quote3 = await hop(gateway, `lq-${locked}`, locked, [...typed3, newPhone()].join('*'));
  expect(quote3.end).toBe(true);
  expect(quote3.screen).toMatch(
    /^Too many wrong PINs: your agent account is locked until \d{2}:\d{2}\. Try again later\.$/,
  );

  for (const screen of [sell.screen, sell2.screen, quote3.screen]) expect(screen).not.toMatch(/not allowed/);
  expect((await ledger(gateway.purchaseServiceUrl)).length).toBe(before);
});

it("a sale over the agent's max sale is refused on the amount screen, which names that limit", async () => {
  const agent = newPhone();
  const pin = await agentWithPin(agent, 'BWP 900.00', { maxSale: 'BWP 500.00' });
  const replies = await dialogue(gateway, `m-${agent}`, agent, [pin, '1', TEST_METERS.active, '600', '500']);
  // The range named is the agent's; 600 is refused before the customer's number is asked.
  expect(replies[3].screen).toMatch(/^Enter the amount \(BWP 5.00 to BWP 500.00\):/);
  expect(replies[4].screen).toMatch(/^Over your max sale limit of BWP 500.00\.\nEnter the amount/);
  expect(replies[5].screen).toMatch(/^Customer's phone number/);
});

it("the day's limits are named on the amount screen, before the customer's number", async () => {
  const agent = newPhone();
  const pin = await agentWithPin(agent, 'BWP 900.00', { maxDayCount: 1, maxDayValue: 'BWP 60.00' });
  const sold = await dialogue(gateway, `dl-${agent}`, agent, [
    pin,
    '1',
    TEST_METERS.active,
    '20',
    newPhone(),
    '1',
  ]);
  expect(sold[6].end).toBe(true);
  // 21.50 of 60.00 used: 40.00 more is over the day's value; 10.00 fits it, not the one sale a day.
  const next = await dialogue(gateway, `dl2-${agent}`, agent, [pin, '1', TEST_METERS.active, '40']);
  expect(next[4].screen).toMatch(/^Over your day value limit of BWP 60.00\.\nEnter the amount/);
  const count = await dialogue(gateway, `dl3-${agent}`, agent, [pin, '1', TEST_METERS.active, '10']);
  expect(count[4].screen).toMatch(/^Over your day count limit of 1\.\nEnter the amount/);
});

it("an agent funded by its own account sells airtime from it: no float, the day's limits counted", async () => {
  const agent = newPhone();
  const customer = newPhone();
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Mma Stores', account: 1003 },
    auth,
  );
  const first = await dialogue(gateway, `ac-${agent}`, agent, [added.data.oneTimePin, '6172', '6172']);
  expect(first[3].screen).toMatch(/^Your PIN is changed\./);
  const sale = await dialogue(gateway, `ac2-${agent}`, agent, ['6172', '2', '1', customer, '15', '1']);
  expect(sale[3].screen).toMatch(/^Enter the mobile number to top up/);
  expect(sale[5].screen).not.toMatch(/Float/);
  expect(sale[6].end).toBe(true);
  const receipt = (await waitForSms(gateway, agent, 1))[0].message;
  expect(receipt).toMatch(/^Sale .*: Airtime/);
  expect(receipt).not.toMatch(/Float/);
  const rows = (await ledger(gateway.purchaseServiceUrl)).filter((r) => r.subscriber_identifier === customer);
  expect(rows).toEqual([expect.objectContaining({ account_id: 1003, status: 'SUCCESSFUL' })]);
  const shown = (await axios.get(`${gateway.url}/admin/agents/${agent}`, auth)).data;
  expect(JSON.stringify(shown)).toMatch(/"count":1/);
  const statement = (await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth)).data;
  expect(statement.entries).toEqual([]);
});

it('a key change: the customer and the agent get the three tokens, key change tokens first', async () => {
  const agent = newPhone();
  const customer = newPhone();
  const pin = await agentWithPin(agent, 'BWP 1100.00');
  const sale = await dialogue(gateway, `kc-${agent}`, agent, [
    pin,
    '1',
    TEST_METERS.autoKeyChange,
    '1001',
    customer,
    '1',
  ]);
  expect(sale[6].end).toBe(true);
  const labels = (text: string) =>
    [...text.matchAll(/(KeyChange Token1|KeyChange Token2|Credit Token)/g)].map((m) => m[1]);
  const inOrder = ['KeyChange Token1', 'KeyChange Token2', 'Credit Token'];
  expect(labels((await waitForSms(gateway, customer, 1))[0].message)).toEqual(inOrder);
  expect(labels((await waitForSms(gateway, agent, 2))[0].message)).toEqual(inOrder);
});

it('first use: the one-time PIN leads to choosing a PIN over USSD; Last sales re-sends a receipt', async () => {
  const agent = newPhone();
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Rra Molefe', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${agent}/credits`,
    { amount: 'BWP 100.00', reference: `f-${agent}` },
    auth,
  );
  const oneTime = added.data.oneTimePin as string;
  const first = await dialogue(gateway, `fu-${agent}`, agent, [
    oneTime,
    '1234',
    '6049',
    '6048',
    '6049',
    '6049',
  ]);
  expect(first[1].screen).toBe('First choose your own PIN.\nEnter a new PIN (4 to 6 digits):');
  expect(first[2].screen).toMatch(/^Too easy to guess/);
  expect(first[4].screen).toBe('The two PINs differ. Try again.\nEnter a new PIN (4 to 6 digits):');
  expect(first[6].screen).toMatch(/^Your PIN is changed\.\nAgent menu:/);

  // A sale, then Last sales → the receipt again (only the receipt).
  const customer = newPhone();
  await dialogue(gateway, `fs-${agent}`, agent, ['6049', '1', TEST_METERS.active, '20', customer, '1']);
  const receipt = (await waitForSms(gateway, agent, 1))[0].message;
  const last = await dialogue(gateway, `fl-${agent}`, agent, ['6049', '5', '1']);
  expect(last[2].screen).toMatch(/^Last sales .*\n1 \d{4}-\d{2}-\d{2} 01234567890 BWP 21.50 /);
  expect(last[3].screen).toMatch(/^The receipt is sent again by SMS\.\nAgent menu:/);
  const again = await waitForSms(gateway, agent, 2);
  expect(again[0].message).toBe(receipt);
  expect(await waitForSms(gateway, customer, 1)).toHaveLength(1);

  // Change PIN from the menu; the old one no longer works.
  const change = await dialogue(gateway, `fc-${agent}`, agent, ['6049', '6', '6049', '7315', '7315']);
  expect(change[5].screen).toMatch(/^Your PIN is changed\./);
  const old = await dialogue(gateway, `fo-${agent}`, agent, ['6049']);
  expect(old[1].screen).toMatch(/^Wrong PIN/);
});

it('with AGENT_SERVICE_CODES the agent menu is on those codes only; elsewhere an agent is a subscriber', async () => {
  const coded = await startTestGateway({ ADMIN_TOKEN: ADMIN, AGENT_SERVICE_CODES: '*384*9#' });
  try {
    const agent = newPhone();
    await axios.post(`${coded.url}/admin/agents`, { msisdn: agent, name: 'Mma Kgosi', float: true }, auth);
    const dial = async (serviceCode: string) =>
      String(
        (
          await axios.post(
            `${coded.url}/ussd/africastalking`,
            new URLSearchParams({
              sessionId: `sc-${serviceCode.replace(/\D/g, '')}-${agent}`,
              phoneNumber: `+${agent}`,
              serviceCode,
              text: '',
            }),
            { responseType: 'text' },
          )
        ).data,
      );
    expect(await dial('*384*9#')).toBe('CON Agent: enter your PIN:');
    expect(await dial('*384*1#')).toMatch(/^CON Welcome! Choose a service:/);
  } finally {
    await coded.close();
  }
});

it('tops up its float over USSD: the amount, a payment asked of its own phone, the float credited once with an SMS', async () => {
  const agent = newPhone();
  const pin = await agentWithPin(agent, 'BWP 10.00');
  const replies = await dialogue(gateway, `topup-${agent}`, agent, [pin, '8', 'abc', '150']);
  expect(replies[1].screen).toMatch(/\n7 Language\n8 Top up float$/);
  expect(replies[2].screen).toBe('Amount to pay into your float from this phone:\n0 Back\n00 Home');
  expect(replies[3].screen).toBe(
    'Enter an amount, e.g. 200.\nAmount to pay into your float from this phone:\n0 Back\n00 Home',
  );
  expect(replies[4]).toMatchObject({
    end: true,
    screen:
      'Approve the payment of BWP 150.00 on your phone. Your float is credited when it is paid; an SMS confirms.',
  });
  const [credited] = await waitForSms(gateway, agent, 2);
  expect(credited.message).toMatch(
    /^Top-up of BWP 150\.00 received \(ref \S+\)\. Your float: BWP 160\.00\.$/,
  );
  const statement = (await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth)).data;
  expect(statement.entries.filter((e: { kind: string }) => e.kind === 'topup')).toHaveLength(1);
  expect(statement.derivedMinor).toBe(16_000);
});
