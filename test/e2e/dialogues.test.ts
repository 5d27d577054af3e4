import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import { dialogue, hop, ledger, newPhone, outbox, startTestGateway, waitForSms } from './harness';

/**
 * Whole dialogues over HTTP against `startGateway` in its embedded mode (sandbox over real
 * HTTP, in-memory sessions and queue, outbox SMS): every product and every staging scenario,
 * ending with the SMS at `/dev/sms` and the sandbox ledger agreeing.
 */

let gateway: Gateway;
const locales = loadLocales();

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
      PURCHASE_API_TIMEOUT_MS: '1000',
      // The service's own limits (scenario 7 at 100000) are reached only past ours.
      SPEND_LIMITS: 'ELECTRICITY=1-200000',
      SPEND_DAY_MAX_VALUE: '10000000',
    },
    { sandbox: { delayMs: 2500 } },
  );
});

afterAll(async () => {
  await gateway.close();
});

const ELECTRICITY = '1';
const AIRTIME = '2';
const WATER = '3';
const BUY = '1';
/** "Send the token to: 1 This phone" (electricity and water, USSD_ASK_TOKEN_RECIPIENT on by default). */
const TO_ME = '1';

async function debitsFor(identifier: string): Promise<number> {
  return (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.subscriber_identifier === identifier && row.debited_minor > 0,
  ).length;
}

/** Makes `lang` the caller's remembered language, in a dialogue that then ends normally. */
async function useLanguage(phone: string, lang: string): Promise<void> {
  const session = `lang-${lang}-${phone}`;
  const menu = await hop(gateway, session, phone, '');
  const languageOption = new RegExp(`(\\d+) ${locales.t('en', 'menu.language')}`).exec(menu.screen)![1];
  const languages = await hop(gateway, session, phone, languageOption);
  const choice = new RegExp(`(\\d+) ${locales.meta(lang).name}`).exec(languages.screen)![1];
  await hop(gateway, session, phone, `${languageOption}*${choice}`);
  await endSession(session, phone);
}

async function endSession(sessionId: string, phone: string): Promise<void> {
  await axios.post(
    `${gateway.url}/ussd/africastalking/events`,
    new URLSearchParams({ sessionId, phoneNumber: `+${phone}`, serviceCode: '*384*1#', status: 'Success' }),
  );
}

/** The text before a message's first placeholder: what a screen must contain for that message. */
const lead = (lang: string, key: string) => locales.template(lang, key)!.split('{')[0];

describe.each(['en', 'tn'])('electricity, every staging scenario (%s)', (lang) => {
  const t = (key: string, params: Record<string, string> = {}) => locales.t(lang, key, params);
  /** A new caller speaking `lang`. */
  async function caller(): Promise<string> {
    const phone = newPhone();
    if (lang !== 'en') await useLanguage(phone, lang);
    return phone;
  }

  it.each([
    ['1', TEST_METERS.active, '100'],
    ['1a', TEST_METERS.tariffCharge, '100'],
    ['1b', TEST_METERS.subAccountSplit, '100'],
    ['1c', TEST_METERS.active13, '100'],
    // Scenario 5 (a fixed charge eating the amount) has its own test: its quote warns and pages.
  ])('scenario %s: quote, buy, token SMS to the caller, one debit', async (_scenario, meter, amount) => {
    const phone = await caller();
    const before = await debitsFor(meter);
    const replies = await dialogue(gateway, `s-${meter}-${phone}`, phone, [
      ELECTRICITY,
      meter,
      TO_ME,
      amount,
      BUY,
    ]);
    expect(replies[0].screen).toContain(t('menu.title'));
    expect(replies[1].screen).toContain(lead(lang, 'identifier.prompt'));
    expect(replies[2].screen).toContain(
      `${t('tokenFor.title')}\n1 ${t('tokenFor.thisPhone')}\n2 ${t('tokenFor.another')}\n`,
    );
    // The amount prompt names the operator's range (SPEND_LIMITS).
    expect(replies[3].screen).toContain(t('amount.promptRange', { min: 'BWP 1.00', max: 'BWP 200000.00' }));
    expect(replies[4].screen).toMatch(/kWh/);
    expect(replies[4].screen).toContain(`BWP ${amount}.00`);
    expect(replies[4].screen).toContain(`1 ${t('quote.buy')}\n2 ${t('quote.cancel')}`);
    expect(replies[5]).toMatchObject({ status: 200, end: true });
    // The caller pays the quote's total first (an unlisted number approves), then the token.
    const total = new RegExp(`${t('quote.line.total', { total: '' })}(BWP [\\d.]+)`).exec(
      replies[4].screen,
    )![1];
    expect(replies[5].screen).toBe(t('payment.approve', { amount: total }));

    const [sms] = await waitForSms(gateway, phone);
    expect(sms.message).toContain(lead(lang, 'sms.tokenSingle'));
    expect(sms.message).toMatch(/\d{4} \d{4} \d{4} \d{4} \d{4}/);
    expect(sms.message).toMatch(/Ref: TOP\/\d{4}\/\d{2}\/\d+/);
    expect(sms.encoding).toBe('GSM-7');
    expect(sms.purchaseId).toBeDefined();
    expect(await debitsFor(meter)).toBe(before + 1);
  });

  it('scenario 3: auto key change, three tokens with the key-change tokens first', async () => {
    const phone = await caller();
    const replies = await dialogue(gateway, `s3-${phone}`, phone, [
      ELECTRICITY,
      TEST_METERS.autoKeyChange,
      TO_ME,
      '1500',
      BUY,
    ]);
    expect(replies[5].end).toBe(true);
    const [sms] = await waitForSms(gateway, phone);
    const keyChange1 = sms.message.indexOf('KeyChange Token1');
    const keyChange2 = sms.message.indexOf('KeyChange Token2');
    const credit = sms.message.indexOf('Credit Token');
    expect(keyChange1).toBeGreaterThanOrEqual(0);
    expect(keyChange1).toBeLessThan(keyChange2);
    expect(keyChange2).toBeLessThan(credit);
    expect(sms.message).toContain(t('sms.keyChangeNote'));
  });

  it.each([
    ['2', TEST_METERS.blocked, 'reason.meter_blocked'],
    ['2a', TEST_METERS.purchasesBlocked, 'reason.meter_blocked'],
    ['2d', TEST_METERS.notFound, 'reason.meter_not_found'],
  ])(
    'scenario %s: the quote sends the caller back to the meter prompt with the reason',
    async (_s, meter, reason) => {
      const phone = await caller();
      const replies = await dialogue(gateway, `s-${meter}-${phone}`, phone, [
        ELECTRICITY,
        meter,
        TO_ME,
        '100',
      ]);
      expect(replies[4].end).toBe(false);
      expect(replies[4].screen).toContain(t(reason));
      expect(replies[4].screen).toContain(lead(lang, 'identifier.prompt'));
      expect(await outbox(gateway, phone)).toEqual([]);
    },
  );

  it.each([
    ['2b', TEST_METERS.debtFirst, 'Purchase only allowed once the debt is paid'],
    ['2c', TEST_METERS.accountBlock, 'Account-level transaction block'],
  ])(
    "scenario %s: a provider refusal ends in the provider's own words, nothing bought",
    async (_s, meter, words) => {
      const phone = await caller();
      const before = await debitsFor(meter);
      const replies = await dialogue(gateway, `s-${meter}-${phone}`, phone, [
        ELECTRICITY,
        meter,
        TO_ME,
        '100',
      ]);
      expect(replies[4].end).toBe(true);
      expect(replies[4].screen).toBe(t('reason.provider_refused', { message: words }));
      expect(await debitsFor(meter)).toBe(before);
    },
  );

  it.each([
    ['4', TEST_METERS.fixedCharge, '500', 'reason.amount_below_minimum.moreThan', 'BWP 1000.00'],
    ['1b', TEST_METERS.subAccountSplit, '50', 'reason.amount_below_minimum.moreThan', 'BWP 60.00'],
    ['7', TEST_METERS.maxVend, '150000', 'reason.amount_above_maximum.atMost', 'BWP 100000.00'],
  ])(
    "scenario %s: an amount out of the meter's range sends the caller back to the amount prompt, naming the limit",
    async (_s, meter, amount, reason, limit) => {
      const phone = await caller();
      const replies = await dialogue(gateway, `s-${meter}-${amount}-${phone}`, phone, [
        ELECTRICITY,
        meter,
        TO_ME,
        amount,
      ]);
      expect(replies[4].end).toBe(false);
      expect(replies[4].screen).toContain(t(reason, { limit }));
      expect(replies[4].screen).toContain(lead(lang, 'amount.promptRange'));
    },
  );

  it('scenario 6: the delayed meter times out on confirm, is reconciled to the original token, one debit', async () => {
    const phone = await caller();
    const replies = await dialogue(gateway, `s6-${phone}`, phone, [
      ELECTRICITY,
      TEST_METERS.delayed,
      TO_ME,
      '100',
      BUY,
    ]);
    expect(replies[5].end).toBe(true);
    const [sms] = await waitForSms(gateway, phone, 1, 20000);
    const [record] = await gateway.desk.listByMsisdn(phone);
    expect(record.state).toBe('succeeded');
    // The confirm timed out (outcome unknown); `retry` answered pending until the original completed.
    expect(record.reconcileAttempts).toBeGreaterThanOrEqual(1);
    const rows = (await ledger(gateway.purchaseServiceUrl)).filter(
      (row) => row.external_reference === record.externalReference,
    );
    expect(rows).toHaveLength(1);
    expect(sms.message).toContain(rows[0].token!);
  });
});

describe('other products', () => {
  it('airtime for my own number: provider, who for, amount, quote, buy, confirmation SMS', async () => {
    const phone = newPhone();
    const replies = await dialogue(gateway, `air-${phone}`, phone, [AIRTIME, '1', '1', '20', BUY]);
    expect(replies[1].screen).toMatch(/MASCOM|Mascom/);
    expect(replies[2].screen).toContain('Buy airtime for:');
    expect(replies[4].screen).toContain('Amount: BWP 20.00');
    expect(replies[5].end).toBe(true);
    const [sms] = await waitForSms(gateway, phone);
    expect(sms.message).toContain('BWP 20.00');
  });

  it('airtime for another number typed in national form goes to that number', async () => {
    const phone = newPhone();
    const other = newPhone();
    const replies = await dialogue(gateway, `air2-${phone}`, phone, [
      AIRTIME,
      '2',
      '2',
      other.slice(3),
      '15',
      BUY,
    ]);
    expect(replies[5].screen).toContain('BWP 15.00');
    expect(replies[6].end).toBe(true);
    const [sms] = await waitForSms(gateway, other);
    expect(sms.message).toContain('BWP 15.00');
    const rows = (await ledger(gateway.purchaseServiceUrl)).filter(
      (row) => row.subscriber_identifier === other,
    );
    expect(rows).toHaveLength(1);
  });

  it('water: account number, quote with litres, token SMS', async () => {
    const phone = newPhone();
    const replies = await dialogue(gateway, `water-${phone}`, phone, [
      WATER,
      TEST_WATER_ACCOUNTS.active,
      TO_ME,
      '80',
      BUY,
    ]);
    expect(replies[2].screen).toContain('Send the token to:\n1 This phone\n2 Another number\n');
    expect(replies[4].screen).toMatch(/ L/);
    expect(replies[5].end).toBe(true);
    const [sms] = await waitForSms(gateway, phone);
    expect(sms.message).toContain('Ref:');
  });
});

describe('Setswana', () => {
  it('choosing Setswana on the language menu, buying electricity, and getting the SMS in Setswana', async () => {
    const phone = newPhone();
    const menu = await hop(gateway, `tn-${phone}`, phone, '');
    const languageOption = /(\d+) Language/.exec(menu.screen)![1];
    const languages = await hop(gateway, `tn-${phone}`, phone, languageOption);
    const setswana = /(\d+) Setswana/.exec(languages.screen)![1];
    const saved = await hop(gateway, `tn-${phone}`, phone, `${languageOption}*${setswana}`);
    expect(saved.screen).toContain('Puo e bolokilwe.');
    expect(saved.screen).toContain('Tlhopha tirelo');

    // The preference is remembered: a new dialogue starts in Setswana.
    const replies = await dialogue(gateway, `tn2-${phone}`, phone, [
      ELECTRICITY,
      TEST_METERS.active,
      TO_ME,
      '100',
      BUY,
    ]);
    expect(replies[0].screen).toContain('O amogetswe!');
    expect(replies[2].screen).toContain('Romela tokene kwa:\n1 Mogala ono\n2 Nomoro e nngwe\n');
    expect(replies[4].screen).toContain('Reka');
    expect(replies[5].screen).toContain('Tokene ya gago e tla latela ka SMS');
    const [sms] = await waitForSms(gateway, phone);
    expect(sms.message).toContain('Tokene: ');
    // Amount before charges and the total paid, labelled as on the quote.
    expect(sms.message).toContain('Madi: BWP 100.00\nPalogotlhe: BWP 101.50');
  });
});

describe('hop protocol', () => {
  it('a re-delivered buy hop gets the same reply and buys once', async () => {
    const phone = newPhone();
    const session = `redeliver-${phone}`;
    const meter = TEST_METERS.active;
    const before = await debitsFor(meter);
    await dialogue(gateway, session, phone, [ELECTRICITY, meter, TO_ME, '100']);
    const text = `${ELECTRICITY}*${meter}*${TO_ME}*100*${BUY}`;
    const [first, second] = await Promise.all([
      hop(gateway, session, phone, text),
      hop(gateway, session, phone, text),
    ]);
    const third = await hop(gateway, session, phone, text);
    expect(second.body).toBe(first.body);
    expect(third.body).toBe(first.body);
    await waitForSms(gateway, phone);
    expect(await debitsFor(meter)).toBe(before + 1);
    expect(await gateway.desk.listByMsisdn(phone)).toHaveLength(1);
  });

  it('a second number on the same session id is refused and changes nothing', async () => {
    const phone = newPhone();
    const intruder = newPhone();
    const session = `intruder-${phone}`;
    await hop(gateway, session, phone, '');
    const refused = await hop(gateway, session, intruder, ELECTRICITY);
    expect(refused.end).toBe(true);
    const next = await hop(gateway, session, phone, ELECTRICITY);
    expect(next.screen).toMatch(/Enter meter number/i);
  });

  it('malformed callbacks get a 400 and no session', async () => {
    const response = await hop(gateway, '', newPhone(), '');
    expect(response.status).toBe(400);
  });

  it('back, home and wrong choices', async () => {
    const phone = newPhone();
    const session = `nav-${phone}`;
    const wrong = await hop(gateway, session, phone, '');
    expect(wrong.screen).toContain('Welcome!');
    const invalid = await hop(gateway, session, phone, '9');
    expect(invalid.screen).toContain('Invalid choice.');
    const meterPrompt = await hop(gateway, session, phone, '9*1');
    expect(meterPrompt.screen).toMatch(/Enter meter number/i);
    const back = await hop(gateway, session, phone, '9*1*0');
    expect(back.screen).toContain('Welcome!');
    await hop(gateway, session, phone, '9*1*0*1');
    const tokenFor = await hop(gateway, session, phone, `9*1*0*1*${TEST_METERS.active}`);
    expect(tokenFor.screen).toContain('Send the token to:');
    const amount = await hop(gateway, session, phone, `9*1*0*1*${TEST_METERS.active}*${TO_ME}`);
    expect(amount.screen).toContain('Enter the amount');
    const home = await hop(gateway, session, phone, `9*1*0*1*${TEST_METERS.active}*${TO_ME}*00`);
    expect(home.screen).toContain('Welcome!');
  });

  it('My purchases lists the last purchase and re-sends its SMS', async () => {
    const phone = newPhone();
    await dialogue(gateway, `buy-${phone}`, phone, [ELECTRICITY, TEST_METERS.active, TO_ME, '100', BUY]);
    await waitForSms(gateway, phone, 1);
    const menu = await hop(gateway, `mine-${phone}`, phone, '');
    const mine = /(\d+) My purchases/.exec(menu.screen)![1];
    const list = await hop(gateway, `mine-${phone}`, phone, mine);
    expect(list.screen).toContain('BWP 100.00');
    const detail = await hop(gateway, `mine-${phone}`, phone, `${mine}*1`);
    expect(detail.screen).toMatch(/1 Send the token again/);
    const resent = await hop(gateway, `mine-${phone}`, phone, `${mine}*1*1`);
    expect(resent.end).toBe(true);
    const messages = await waitForSms(gateway, phone, 2);
    expect(messages[0].message).toBe(messages[1].message);
  });
});

describe('start-up', () => {
  it('refuses a DEFAULT_LANGUAGE that has no catalogue, before starting anything', async () => {
    await expect(startTestGateway({ DEFAULT_LANGUAGE: 'xx' })).rejects.toThrow(
      'DEFAULT_LANGUAGE=xx has no catalogue in locales/ (there are: en, tn)',
    );
  });
});
