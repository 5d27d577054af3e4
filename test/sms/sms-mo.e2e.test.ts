import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import {
  hop,
  ledger,
  newPhone,
  outbox,
  startTestGateway,
  waitForSms,
  type OutboxMessage,
} from '../e2e/harness';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * SMS-MO end to end over HTTP: an inbound SMS at the Africa's Talking route (or the generic
 * JSON one) → the quote in the outbox → `YES <code>` → the token SMS, with the sandbox ledger
 * counting debits. Run against the in-memory default and against Redis.
 */

let seq = 0;
const nextId = (): string => `ATXid_${process.pid}_${Date.now()}_${++seq}`;

async function sendAt(gateway: Gateway, from: string, text: string, id = nextId()): Promise<number> {
  const response = await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id,
      from: `+${from}`,
      to: '12345',
      text,
      date: new Date().toISOString(),
      linkId: 'L1',
    }),
    { validateStatus: () => true },
  );
  return response.status;
}

async function sendGeneric(gateway: Gateway, from: string, text: string, id?: string): Promise<number> {
  const response = await axios.post(
    `${gateway.url}/sms/inbound`,
    { ...(id !== undefined && { id }), from, to: '12345', text, receivedAt: new Date().toISOString() },
    { validateStatus: () => true },
  );
  return response.status;
}

/** Wait for the `n`th SMS to `to` and return it (the newest). */
async function nthSms(gateway: Gateway, to: string, n: number): Promise<OutboxMessage> {
  return (await waitForSms(gateway, to, n))[0];
}

const codeOf = (quote: string): string => /YES (\d{4})|EE (\d{4})/.exec(quote)!.slice(1).find(Boolean)!;

/** Arm a fault on the sandbox's next validate calls (operator extras, no auth). */
async function validateFault(gateway: Gateway, fault: string, extra: Record<string, unknown> = {}) {
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, { endpoint: 'validate', fault, ...extra });
}

async function debits(gateway: Gateway, identifier: string): Promise<number> {
  return (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.subscriber_identifier === identifier && r.debited_minor > 0,
  ).length;
}

describe.each([['in memory'], ['on Redis']])('SMS-MO commands %s', (mode) => {
  let gateway: Gateway;
  let redis: TestRedis | undefined;

  beforeAll(async () => {
    redis = mode === 'on Redis' ? testRedis('smsmo') : undefined;
    gateway = await startTestGateway(
      {
        ...(redis && { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix }),
        SMS_REPLIES_PER_MIN: '50',
        SMS_RATE_PER_MIN: '50',
        // The commands on the operator's wallet: the payment step by SMS is test/e2e/payments.test.ts.
        PAYMENT_PROVIDER: 'none',
        // The delayed meter answers after 3 s: its confirm times out and is reconciled.
        PURCHASE_API_TIMEOUT_MS: '2000',
        PURCHASE_API_CONFIRM_TIMEOUT_MS: '2000',
      },
      { sandbox: { delayMs: 3000 } },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await redis?.cleanup();
  });

  it('quotes ELEC, buys on YES <code> with one debit, and sends the token SMS', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.active;
    const before = await debits(gateway, meter);
    // The quote call is held for a second: the provider gets its 200 before the quote exists,
    // because the message is processed in a job, not in the request.
    await validateFault(gateway, 'slow', { delayMs: 1000 });
    expect(await sendAt(gateway, phone, `ELEC ${meter} 100`)).toBe(200);
    expect(await outbox(gateway, phone)).toEqual([]);
    const quote = await nthSms(gateway, phone, 1);
    expect(quote.message).toMatch(/Electricity 01234567890/);
    expect(quote.message).toMatch(/Total: BWP \d+\.\d{2}/);
    expect(quote.message).toMatch(/Reply YES \d{4} to buy\. Expires in 5 min\./);
    expect(quote.parts).toBeLessThanOrEqual(2);
    expect(quote.encoding).toBe('GSM-7');
    expect(await debits(gateway, meter)).toBe(before);

    expect(await sendAt(gateway, phone, `YES ${codeOf(quote.message)}`)).toBe(200);
    const token = await nthSms(gateway, phone, 2);
    expect(token.message).toMatch(/Token: \d{4} \d{4}/);
    expect(await debits(gateway, meter)).toBe(before + 1);
  });

  it('buys once for YES twice, a re-delivered YES, and two YES at once', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.tariffCharge;
    const before = await debits(gateway, meter);
    await sendAt(gateway, phone, `ELEC ${meter} 50`);
    const code = codeOf((await nthSms(gateway, phone, 1)).message);
    const yesId = nextId();
    // Two at once (different messages), and the first one re-delivered by the provider.
    const statuses = await Promise.all([
      sendAt(gateway, phone, `YES ${code}`, yesId),
      sendAt(gateway, phone, `yes ${code}`),
      sendAt(gateway, phone, `YES ${code}`, yesId),
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    // The token SMS and one "already bought" reply; the re-delivery gets nothing.
    const messages = await waitForSms(gateway, phone, 3);
    await until('the purchase settles', async () =>
      (await debits(gateway, meter)) === before + 1 ? true : null,
    );
    const texts = (await outbox(gateway, phone)).map((m) => m.message);
    expect(texts.filter((t) => /Already bought/.test(t))).toHaveLength(1);
    expect(texts.filter((t) => /Token/.test(t))).toHaveLength(1);
    expect(messages).toHaveLength(3);
    // A later YES (after the token) still buys nothing.
    await sendAt(gateway, phone, 'YES');
    expect((await nthSms(gateway, phone, 4)).message).toMatch(/Already bought; your token was sent/);
    expect(await debits(gateway, meter)).toBe(before + 1);
  });

  it('key-change meter: every token in order, one debit', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.autoKeyChange;
    const before = await debits(gateway, meter);
    await sendAt(gateway, phone, `ELEC ${meter} 1500`);
    await sendAt(gateway, phone, `YES ${codeOf((await nthSms(gateway, phone, 1)).message)}`);
    const token = (await nthSms(gateway, phone, 2)).message;
    const order = ['KeyChange Token1', 'KeyChange Token2', 'Credit Token'].map((d) => token.indexOf(d));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(await debits(gateway, meter)).toBe(before + 1);
  });

  it('water, and airtime for the own number and another one (by network name)', async () => {
    const phone = newPhone();
    await sendGeneric(gateway, phone, `WATER ${TEST_WATER_ACCOUNTS.active} 40`, nextId());
    const water = await nthSms(gateway, phone, 1);
    expect(water.message).toMatch(/Water 2000123456/);
    await sendGeneric(gateway, phone, `YES ${codeOf(water.message)}`, nextId());
    expect((await nthSms(gateway, phone, 2)).message).toMatch(/Token/);

    await sendAt(gateway, phone, 'AIR 20');
    expect((await nthSms(gateway, phone, 3)).message).toMatch(/Which network\? .*MASCOM, ORANGE, BTC/);
    // The sender's own number when none is given.
    await sendAt(gateway, phone, 'AIRTIME mascom 15');
    const own = (await nthSms(gateway, phone, 4)).message;
    expect(own).toMatch(new RegExp(`Airtime for ${phone} \\(MASCOM\\)`));
    await sendAt(gateway, phone, `YES ${codeOf(own)}`);
    expect((await nthSms(gateway, phone, 5)).message).toMatch(/Airtime of BWP 15.00 sent to/);
    const other = newPhone();
    await sendAt(gateway, phone, `AIR orange ${other} 20`);
    const airQuote = (await nthSms(gateway, phone, 6)).message;
    expect(airQuote).toMatch(new RegExp(`Airtime for ${other} \\(ORANGE\\)`));
    await sendAt(gateway, phone, `YES ${codeOf(airQuote)}`);
    expect((await nthSms(gateway, other, 1)).message).toMatch(/Airtime of BWP 20.00 sent to/);
    // A network named by the catalogue's provider name, loosely; one it does not know.
    await sendAt(gateway, phone, `AIR botswana telecommunications ${other} 10`);
    expect((await nthSms(gateway, phone, 8)).message).toMatch(new RegExp(`Airtime for ${other} \\(BTC\\)`));
    await sendAt(gateway, phone, 'AIR vodafone 10');
    expect((await nthSms(gateway, phone, 9)).message).toBe(
      'Unknown network "vodafone". Networks: MASCOM, ORANGE, BTC',
    );
  });

  it('blocked meter: the reason, nothing to buy; an unknown code buys nothing', async () => {
    const phone = newPhone();
    await sendAt(gateway, phone, `ELEC ${TEST_METERS.blocked} 100`);
    expect((await nthSms(gateway, phone, 1)).message).toMatch(/Electricity 04100000001: .*blocked/i);
    await sendAt(gateway, phone, 'YES 1234');
    expect((await nthSms(gateway, phone, 2)).message).toMatch(
      /You have no purchase waiting|wrong or has expired/,
    );
    expect(await debits(gateway, TEST_METERS.blocked)).toBe(0);
  });

  it('names what is wrong: the meter length, the amount, the amount ceiling; the operator failing', async () => {
    const phone = newPhone();
    const cases: [string, RegExp][] = [
      ['ELEC 0123 100', /^Meter number must be 11 to 13 digits\.\nBuy by SMS:/],
      [`ELEC ${TEST_METERS.active} 1,000`, /^Amount must be a number like 100 or 25\.50\.\nBuy by SMS:/],
      [`ELEC ${TEST_METERS.active} 999999`, /^The amount must be at most BWP 5000\.00\.$/],
      ['SEND MONEY', /^Unknown command\.\nBuy by SMS:/],
    ];
    for (const [n, [text, reply]] of cases.entries()) {
      await sendAt(gateway, phone, text);
      expect((await nthSms(gateway, phone, n + 1)).message).toMatch(reply);
    }
    // The purchase service failing on its side: "unavailable", nothing quoted.
    await validateFault(gateway, 'internal_error', { count: 1 });
    await sendAt(gateway, phone, `ELEC ${TEST_METERS.active} 100`);
    expect((await nthSms(gateway, phone, cases.length + 1)).message).toBe(
      'Sorry, the service is unavailable right now. Please try again later.',
    );
    await sendAt(gateway, phone, 'YES');
    expect((await nthSms(gateway, phone, cases.length + 2)).message).toMatch(/no purchase waiting/);
  });

  it('a new command replaces the pending quote: only the newest code buys', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.active;
    const account = TEST_WATER_ACCOUNTS.active;
    const [meterBefore, waterBefore] = [await debits(gateway, meter), await debits(gateway, account)];
    await sendAt(gateway, phone, `ELEC ${meter} 30`);
    const first = codeOf((await nthSms(gateway, phone, 1)).message);
    await sendAt(gateway, phone, `WATER ${account} 25`);
    const second = codeOf((await nthSms(gateway, phone, 2)).message);
    let sent = 2;
    if (first !== second) {
      await sendAt(gateway, phone, `YES ${first}`);
      expect((await nthSms(gateway, phone, ++sent)).message).toMatch(/wrong or has expired/);
    }
    await sendAt(gateway, phone, `YES ${second}`);
    expect((await nthSms(gateway, phone, ++sent)).message).toMatch(/^Water 2000123456\nToken: /);
    expect(await debits(gateway, account)).toBe(waterBefore + 1);
    expect(await debits(gateway, meter)).toBe(meterBefore);
  });

  it('TOKEN: the last three purchases with dates, newest first; TOKEN <meter> only that meter', async () => {
    const phone = newPhone();
    let count = 0;
    const buy = async (text: string): Promise<string> => {
      await sendAt(gateway, phone, text);
      await sendAt(gateway, phone, `YES ${codeOf((await nthSms(gateway, phone, ++count)).message)}`);
      return /Token: ([\d ]+)/.exec((await nthSms(gateway, phone, ++count)).message)![1].trim();
    };
    const tokens = [
      await buy(`ELEC ${TEST_METERS.active13} 20`),
      await buy(`ELEC ${TEST_METERS.active} 21`),
      await buy(`ELEC ${TEST_METERS.active} 22`),
      await buy(`WATER ${TEST_WATER_ACCOUNTS.active} 23`),
    ];
    expect(new Set(tokens).size).toBe(4);
    await sendAt(gateway, phone, 'TOKEN');
    const last = (await nthSms(gateway, phone, ++count)).message;
    expect(last).toMatch(/^\d{4}-\d{2}-\d{2} Water 2000123456\n/);
    expect(last.split('\n\n')).toHaveLength(3);
    const at = tokens.map((t) => last.indexOf(t));
    expect(at[0]).toBe(-1);
    expect(at[3]).toBeLessThan(at[2]);
    expect(at[2]).toBeLessThan(at[1]);
    expect(at[1]).toBeGreaterThan(0);
    await sendAt(gateway, phone, `TOKEN ${TEST_METERS.active13}`);
    const one = (await nthSms(gateway, phone, ++count)).message;
    expect(one).toMatch(/^\d{4}-\d{2}-\d{2} Electricity 0123456789012\n/);
    expect(one).toContain(tokens[0]);
    expect(one.split('\n\n')).toHaveLength(1);
  });

  it('delayed meter: reconciled, one debit, the token arrives', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.delayed;
    const before = await debits(gateway, meter);
    await sendAt(gateway, phone, `ELEC ${meter} 30`);
    await sendAt(gateway, phone, `YES ${codeOf((await nthSms(gateway, phone, 1)).message)}`);
    const token = (await waitForSms(gateway, phone, 2, 30_000))[0].message;
    const [record] = await gateway.desk.listByMsisdn(phone);
    // The confirm timed out (outcome unknown); `retry` found the original purchase.
    expect(record).toMatchObject({ state: 'succeeded', reconcileAttempts: expect.any(Number) });
    expect(record.reconcileAttempts).toBeGreaterThanOrEqual(1);
    const rows = (await ledger(gateway.purchaseServiceUrl)).filter(
      (r) => r.external_reference === record.externalReference,
    );
    expect(rows).toHaveLength(1);
    expect(token).toContain(rows[0].token!);
    expect(await debits(gateway, meter)).toBe(before + 1);
  });

  it('NO cancels; TOKEN re-sends the last tokens; HELP in both languages; LANG is shared', async () => {
    const phone = newPhone();
    await sendAt(gateway, phone, `ELEC ${TEST_METERS.active13} 20`);
    const code = codeOf((await nthSms(gateway, phone, 1)).message);
    await sendAt(gateway, phone, 'NO');
    expect((await nthSms(gateway, phone, 2)).message).toMatch(/Cancelled; nothing was bought/);
    await sendAt(gateway, phone, `YES ${code}`);
    expect((await nthSms(gateway, phone, 3)).message).toMatch(/wrong or has expired/);

    await sendAt(gateway, phone, `ELEC ${TEST_METERS.active13} 20`);
    await sendAt(gateway, phone, `YES ${codeOf((await nthSms(gateway, phone, 4)).message)}`);
    const token = (await nthSms(gateway, phone, 5)).message;
    await sendAt(gateway, phone, 'TOKEN');
    const last = (await nthSms(gateway, phone, 6)).message;
    expect(last).toMatch(/^\d{4}-\d{2}-\d{2} Electricity 0123456789012/);
    expect(last).toContain(/Token: ([\d ]+)/.exec(token)![1].trim());

    await sendAt(gateway, phone, 'HELP');
    const english = await nthSms(gateway, phone, 7);
    expect(english.message).toMatch(/^Buy by SMS:\nELEC \[meter\] <amount> \[phone\]\n/);
    expect(english.parts).toBeLessThanOrEqual(2);
    await sendAt(gateway, phone, 'PUO TN');
    expect((await nthSms(gateway, phone, 8)).message).toBe('Puo e fetotswe go Setswana.');
    // The same preference as USSD: dialling now shows the Setswana menu.
    expect((await hop(gateway, `lang-${phone}`, phone, '')).screen).toMatch(/^O amogetswe!/);
    await sendAt(gateway, phone, 'HELP');
    const help = await nthSms(gateway, phone, 9);
    expect(help.message).toMatch(/^Go reka ka SMS:\nMOTLAKASE \[mitara\] <madi> \[nomoro\]\n/);
    expect(help.parts).toBeLessThanOrEqual(2);
    await sendAt(gateway, phone, 'hello');
    expect((await nthSms(gateway, phone, 10)).message).toMatch(/^Taelo e e sa itsiweng\.\nGo reka ka SMS/);
  });

  it('Setswana end to end: MOTLAKASE quote and EE <code>', async () => {
    const phone = newPhone();
    await sendAt(gateway, phone, `MOTLAKASE ${TEST_METERS.active} 60`);
    const sms = await nthSms(gateway, phone, 1);
    const quote = sms.message;
    expect(quote).toMatch(/^Motlakase 01234567890/);
    expect(quote).toMatch(/Araba EE \d{4} go reka/);
    expect([sms.parts <= 2, sms.encoding]).toEqual([true, 'GSM-7']);
    await sendAt(gateway, phone, `EE ${codeOf(quote)}`);
    expect((await nthSms(gateway, phone, 2)).message).toMatch(/Tokene: /);
  });

  it('refuses a malformed body with 400 naming the field, and answers nothing', async () => {
    const response = await axios.post(
      `${gateway.url}/sms/africastalking`,
      new URLSearchParams({ id: 'x', from: '+26771111111', to: '1', date: 'now' }),
      { validateStatus: () => true },
    );
    expect([response.status, response.data]).toEqual([400, 'missing field: text']);
    const generic = await axios.post(
      `${gateway.url}/sms/inbound`,
      { from: '26771111111', text: 'HELP' },
      { validateStatus: () => true },
    );
    expect(generic.status).toBe(400);
    expect(generic.data).toMatch(/to/);
  });

  it('never replies to an alphanumeric sender or a short code', async () => {
    const id = nextId();
    expect(await sendAt(gateway, 'MASCOM', 'HELP', id)).toBe(200);
    expect(await sendGeneric(gateway, '12345', 'HELP', nextId())).toBe(200);
    // Then a message from a subscriber, answered: the two before it were processed first.
    const phone = newPhone();
    await sendAt(gateway, phone, 'HELP');
    await nthSms(gateway, phone, 1);
    const all = (await axios.get(`${gateway.url}/dev/sms`, { params: { limit: 500 } })).data
      .messages as OutboxMessage[];
    expect(all.filter((m) => m.to === 'MASCOM' || m.to === '12345' || m.to.endsWith('12345'))).toEqual([]);
  });
});
