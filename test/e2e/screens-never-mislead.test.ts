import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import { dialogue, hop, newPhone, startTestGateway, waitForSms } from './harness';

/**
 * Screens and messages never mislead (#12 item 5), over HTTP against a whole gateway at the
 * smallest common screen limit (160): the quote's amount and total whole, Setswana labels,
 * one meaning of "Amount", the provider's own words, local dates, a page kept after a wrong
 * choice, `0` on the amount screen, hops after the end, and a resume offer that says what it
 * resumes.
 */

const locales = loadLocales();
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    USSD_SCREEN_LIMIT: '160',
    SPEND_LIMITS: 'ELECTRICITY=1-200000',
    SPEND_DAY_MAX_VALUE: '10000000',
  });
});
afterAll(() => gateway.close());

/** Makes Setswana the caller's language (menu → Language → Setswana), in a dialogue of its own. */
async function setswana(phone: string): Promise<void> {
  const session = `tn-${phone}`;
  const menu = await hop(gateway, session, phone, '');
  const language = /(\d+) Language/.exec(menu.screen)![1];
  const list = await hop(gateway, session, phone, language);
  const tn = /(\d+) Setswana/.exec(list.screen)![1];
  await hop(gateway, session, phone, `${language}*${tn}`);
}

const tn = (key: string, params: Record<string, string> = {}) => locales.t('tn', key, params);

it('Setswana at 160: a 13-digit meter and BWP 99999.99 show the whole amount and total, and Buy buys', async () => {
  const phone = newPhone();
  await setswana(phone);
  const replies = await dialogue(gateway, `q-${phone}`, phone, [
    '1',
    TEST_METERS.active13,
    '1', // Romela tokene kwa: Mogala ono
    '99999.99',
    '1',
  ]);
  // Locale labels, not the catalogue's English; "Language" kept beside its Setswana word.
  expect(replies[0].screen).toContain(`1 ${tn('product.ELECTRICITY')}`);
  expect(replies[0].screen).toContain('Puo (Language)');
  expect(replies[1].screen).toContain('Tsenya nomoro ya mitara (dipalo tse 11 go ya go 13):');
  expect(replies[1].screen).not.toMatch(/Meter number/i);
  expect(replies[2].screen).toContain(
    `${tn('tokenFor.title')}\n1 ${tn('tokenFor.thisPhone')}\n2 ${tn('tokenFor.another')}`,
  );
  expect(replies[2].screen.length).toBeLessThanOrEqual(160);
  const quote = replies[4].screen;
  expect(quote.length).toBeLessThanOrEqual(160);
  expect(quote).toContain(TEST_METERS.active13);
  expect(quote).toContain(tn('quote.line.amount', { amount: 'BWP 99999.99' }));
  expect(quote).toContain(tn('quote.line.total', { total: 'BWP 100001.49' }));
  expect(quote).toContain(`1 ${tn('quote.buy')}`);
  expect(replies[5].end).toBe(true);
  const [sms] = await waitForSms(gateway, phone);
  // The token SMS labels amount and total as the quote did.
  expect(sms.message).toContain('Madi: BWP 99999.99\nPalogotlhe: BWP 100001.49');
});

it('a fixed charge eating the amount: the quote warns before Buy, over two pages, nothing cut', async () => {
  const phone = newPhone();
  const replies = await dialogue(gateway, `fc-${phone}`, phone, ['1', TEST_METERS.fixedCharge, '1', '1001']);
  const page1 = replies[4].screen;
  expect(page1).toContain('Total: BWP 1002.50');
  expect(page1).toContain('98 More');
  const page2 = await hop(gateway, `fc-${phone}`, phone, `1*${TEST_METERS.fixedCharge}*1*1001*98`);
  expect(page2.screen).toContain(locales.t('en', 'quote.deducted', { deducted: 'BWP 1000.00' }));
  expect(page2.screen).toContain('1 Buy');
  // An invalid choice on page 2 stays on page 2.
  const wrong = await hop(gateway, `fc-${phone}`, phone, `1*${TEST_METERS.fixedCharge}*1*1001*98*7`);
  expect(wrong.screen).toContain('1 Buy');
  expect(wrong.screen).toContain('0 Back');
  expect(wrong.screen).not.toContain('Total: BWP');
  const bought = await hop(gateway, `fc-${phone}`, phone, `1*${TEST_METERS.fixedCharge}*1*1001*98*7*1`);
  expect(bought.end).toBe(true);
});

it("below the meter's minimum the screen names it; a debt ends in the provider's own words", async () => {
  const phone = newPhone();
  const low = await dialogue(gateway, `min-${phone}`, phone, ['1', TEST_METERS.fixedCharge, '1', '500']);
  expect(low[4].screen).toContain('The amount for this meter must be more than BWP 1000.00.');
  // Another caller: this one dropped on the amount screen and would be offered to resume.
  const other = newPhone();
  const debt = await dialogue(gateway, `debt-${other}`, other, ['1', TEST_METERS.debtFirst, '1', '100']);
  expect(debt[4]).toMatchObject({ end: true });
  expect(debt[4].screen).toBe(
    'The provider refused this purchase: Purchase only allowed once the debt is paid',
  );
});

it('0 on the amount screen is not silently Back: asked once, then back', async () => {
  const phone = newPhone();
  const replies = await dialogue(gateway, `zero-${phone}`, phone, ['1', TEST_METERS.active, '1', '0', '0']);
  expect(replies[4].screen).toContain(locales.t('en', 'amount.zeroIsBack'));
  expect(replies[4].screen).toContain('Enter the amount');
  // Back one screen: who gets the token.
  expect(replies[5].screen).toMatch(/^Send the token to:/);
});

it('a hop after END, or from another number, says the session has ended', async () => {
  const phone = newPhone();
  const session = `end-${phone}`;
  const cancelled = await dialogue(gateway, session, phone, ['1', TEST_METERS.active, '1', '20', '2']);
  expect(cancelled[5].end).toBe(true);
  const late = await hop(gateway, session, phone, `1*${TEST_METERS.active}*1*20*2*1`);
  expect(late).toMatchObject({ end: true, screen: locales.t('en', 'error.sessionEnded') });
  const other = newPhone();
  await hop(gateway, `own-${phone}`, phone, '');
  const intruder = await hop(gateway, `own-${phone}`, other, '1');
  expect(intruder).toMatchObject({ end: true, screen: locales.t('en', 'error.sessionEnded') });
});

it('the resume offer names the product and the identifier', async () => {
  const phone = newPhone();
  await dialogue(gateway, `drop-${phone}`, phone, ['3', TEST_WATER_ACCOUNTS.active, '1']);
  // Dropped on the amount screen (no end notification); the caller dials again.
  const offer = await hop(gateway, `again-${phone}`, phone, '');
  expect(offer.screen).toContain(locales.t('en', 'resume.prompt'));
  expect(offer.screen).toContain(`Water: ${TEST_WATER_ACCOUNTS.active}`);
});

it('My tokens dates a purchase in the operator time zone', async () => {
  const phone = newPhone();
  await dialogue(gateway, `buy-${phone}`, phone, ['1', TEST_METERS.active, '1', '100', '1']);
  await waitForSms(gateway, phone);
  const [record] = await gateway.desk.listByMsisdn(phone);
  const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Gaborone' }).format(
    new Date(record.createdAt),
  );
  const menu = await hop(gateway, `mine-${phone}`, phone, '');
  const mine = /(\d+) My purchases/.exec(menu.screen)![1];
  const list = await hop(gateway, `mine-${phone}`, phone, mine);
  // My purchases (machine 7): `<date> <meter> <amount>`.
  expect(list.screen).toMatch(new RegExp(`${local} \\d+ BWP 100\\.00`));
});
