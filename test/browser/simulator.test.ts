import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import { ledger, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';
import { ARTIFACTS, findChromium, launchChromium, watchPage } from './browser';

/**
 * The phone simulator in a real headless Chromium against a whole gateway (embedded sandbox,
 * in-memory stores): what a new user does on `/simulator`, through the page only.
 */
const executable = findChromium();
if (!executable) {
  const message =
    'test/browser: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH): the simulator tests are skipped';
  // In CI the browser is installed by .ci/run: its absence there is a failure, not a skip.
  if (process.env.CI) throw new Error(message);
  console.warn(message);
}
const describeInBrowser = executable ? describe : describe.skip;

jest.setTimeout(90_000);

const locales = loadLocales();
const SUBSCRIBER = '26771234567';
const SETSWANA = '26772345678';
const AGENT = '26773456789';

let gateway: Gateway;
let browser: Browser;
let page: Page;
let problems: string[];

/** The phone card of `msisdn` on the page. */
const phoneOf = (msisdn: string): Locator => page.locator(`article.phone[data-msisdn="${msisdn}"]`);

async function replies(phone: Locator): Promise<number> {
  return Number((await phone.getAttribute('data-replies')) ?? '0');
}

/** Wait for the phone's next screen after `act` (each answer bumps `data-replies`). */
async function nextScreen(phone: Locator, act: () => Promise<void>): Promise<string> {
  const before = await replies(phone);
  await act();
  const msisdn = await phone.getAttribute('data-msisdn');
  await page.locator(`article.phone[data-msisdn="${msisdn}"][data-replies="${before + 1}"]`).waitFor();
  return phone.locator('.screen-text').innerText();
}

/** Dial (hanging up first if a dialogue is still open, as a subscriber would). */
async function dial(phone: Locator): Promise<string> {
  const hangUp = phone.getByRole('button', { name: /^Cancel/ });
  if (await hangUp.isEnabled()) {
    await hangUp.click();
    await phone.locator('.kind.idle').waitFor();
  }
  const screen = await nextScreen(phone, () => phone.getByRole('button', { name: /^Dial from/ }).click());
  // A dialogue dropped part-way is offered back: these tests start afresh.
  return screen.includes(locales.t('en', 'resume.prompt'))
    ? send(phone, option(screen, locales.t('en', 'resume.no')))
    : screen;
}

/** Type on the handset and press Enter, as a keyboard user does. */
const send = (phone: Locator, input: string): Promise<string> =>
  nextScreen(phone, async () => {
    const field = phone.getByLabel(/^Reply on/);
    await field.fill(input);
    await field.press('Enter');
  });

/** The number in front of `label` on a menu screen (`1 Electricity` → `1`). */
function option(screen: string, label: string): string {
  const found = new RegExp(`(\\d+) ${label}`).exec(screen);
  if (!found) throw new Error(`no option "${label}" on the screen:\n${screen}`);
  return found[1];
}

/** Wait for an SMS containing `text` in the phone's inbox; returns the newest message's text. */
async function inboxHas(phone: Locator, text: string | RegExp): Promise<string> {
  const message = phone.locator('.inbox .message', { hasText: text }).first();
  await message.waitFor({ timeout: 20_000 });
  return message.innerText();
}

/**
 * Answer the push on the handset: the page's phones answer their payment prompts by hand (the
 * embedded payment sandbox waits). Returns the prompt's text.
 */
async function answerPayment(phone: Locator, answer: 'Approve' | 'Decline' = 'Approve'): Promise<string> {
  const prompt = phone.locator('.payment-prompt');
  await prompt.waitFor({ state: 'visible', timeout: 20_000 });
  const text = await prompt.locator('.prompt-text').innerText();
  const id = await phone.getAttribute('data-prompt');
  await phone.getByRole('button', { name: new RegExp(`^${answer} payment on`) }).click();
  // Answered: the handset shows the next push, if any, or none.
  const msisdn = await phone.getAttribute('data-msisdn');
  await page
    .locator(`article.phone[data-msisdn="${msisdn}"]:not([data-prompt="${id}"])`)
    .waitFor({ timeout: 20_000 });
  return text;
}

async function chooseAggregator(name: string): Promise<void> {
  await page.getByLabel('Aggregator format').selectOption(name);
}

/** Buy electricity on the handset: menu, meter (typed by clicking the scenario), amount, quote, Buy. */
async function buyElectricity(
  phone: Locator,
  lang: 'en' | 'tn',
  meter: string,
  amount: string,
): Promise<string> {
  const menu = await dial(phone);
  const meterPrompt = await send(phone, option(menu, locales.t(lang, 'product.ELECTRICITY')));
  expect(meterPrompt).toContain(locales.t(lang, 'identifier.label.ELECTRICITY'));
  // The sandbox panel types the test meter on the selected phone.
  await phone.click();
  await page.locator(`.scenario[data-identifier="${meter}"]`).first().click();
  await expect(phone.getByLabel(/^Reply on/).inputValue()).resolves.toBe(meter);
  const asked = await nextScreen(phone, () => phone.getByLabel(/^Reply on/).press('Enter'));
  await tokenToThisPhone(phone, lang, asked);
  const quote = await send(phone, amount);
  return send(phone, option(quote, locales.t(lang, 'quote.buy')));
}

/** Where a dialogue asks who gets the token (when its catalogue has that step): this phone. */
async function tokenToThisPhone(phone: Locator, lang: 'en' | 'tn', screen: string): Promise<string> {
  const title = locales.template(lang, 'tokenFor.title');
  if (title === undefined || !screen.includes(title)) return screen;
  return send(phone, option(screen, locales.t(lang, 'tokenFor.thisPhone')));
}

describeInBrowser('the phone simulator at /simulator, in Chromium', () => {
  beforeAll(async () => {
    gateway = await startTestGateway({ SMS_REPLIES_PER_MIN: '50', SMS_RATE_PER_MIN: '50' });
    browser = await launchChromium(executable!);
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    problems = watchPage(page, gateway.url);
    await page.goto(`${gateway.url}/simulator`);
    await page.getByText('Ready: choose a phone').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });
  afterEach(() => {
    expect(problems).toEqual([]);
  });

  it('buys electricity for a sandbox meter over Africa’s Talking: END, the push approved on the handset, the token SMS in the inbox', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('africastalking');
    const done = await buyElectricity(phone, 'en', TEST_METERS.active, '100');
    expect(await phone.locator('.kind').innerText()).toBe('END');
    // The buyer pays first: the push shows on the handset and waits for the payer's answer.
    const total = /Approve (BWP [\d.]+) on your phone to pay. Your token follows by SMS./.exec(done)![1];
    expect(await phone.locator('.counter').innerText()).toMatch(/^\d+\/182 septets · GSM-7$/);
    await page
      .locator('#payments-ledger tbody tr', { hasText: `+${SUBSCRIBER}` })
      .first()
      .waitFor();
    expect(await page.locator('#payments-ledger tbody tr').first().innerText()).toMatch(
      new RegExp(`^pending\\s+\\+${SUBSCRIBER}\\s+${total}`),
    );
    expect(await answerPayment(phone)).toMatch(new RegExp(`^Pay ${total} to .+\\. Enter PIN$`));

    // Confirmed once paid: the purchase service's ledger has the token then.
    const token = await until(
      'the confirm, once paid',
      async () =>
        (await ledger(gateway.purchaseServiceUrl)).find(
          (row) => row.subscriber_identifier === TEST_METERS.active && row.status === 'SUCCESSFUL',
        )?.token,
    );
    const sms = await inboxHas(phone, token);
    expect(sms).toContain(`Token: ${token}`);
    // With what was paid and the M-Pesa receipt: two parts of GSM-7.
    expect(sms).toMatch(new RegExp(`Paid ${total} by mobile money, ref \\w+`));
    expect(await phone.locator('.inbox .meta').first().innerText()).toMatch(/GSM-7 · 2 parts/);
    // The ledger panels show the same transaction and the payment collected.
    await page.locator('#ledger tbody tr', { hasText: token }).waitFor();
    await page
      .locator('#payments-ledger tbody tr.successful', { hasText: `+${SUBSCRIBER}` })
      .first()
      .waitFor();

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'simulator-purchase.png'), fullPage: true });
  });

  it('the same in Setswana: language chosen on the handset, quote, END and the token SMS in Setswana', async () => {
    const phone = phoneOf(SETSWANA);
    const menu = await dial(phone);
    const languages = await send(phone, option(menu, 'Language'));
    const saved = await send(phone, option(languages, locales.meta('tn').name));
    expect(saved).toContain(locales.t('tn', 'language.saved'));
    await phone.getByRole('button', { name: /^Cancel/ }).click();
    await phone.locator('.screen-text', { hasText: 'end notification was sent' }).waitFor();

    const done = await buyElectricity(phone, 'tn', TEST_METERS.active, '50');
    // The buyer pays first, in Setswana too.
    expect(done).toBe(locales.t('tn', 'payment.approve', { amount: 'BWP 51.50' }));
    await answerPayment(phone);
    expect(await inboxHas(phone, 'Tokene: ')).toContain('Palogotlhe: BWP 51.50');
  });

  it('buys water over Comviva (GET, Freeflow header), with the request shown as it went on the wire', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('comviva');
    const menu = await dial(phone);
    expect(await phone.locator('.wire-text').textContent()).toMatch(
      /^GET \/ussd\/comviva\?SessionID=.*freeflow: FC/s,
    );
    await send(phone, option(menu, 'Water'));
    await tokenToThisPhone(phone, 'en', await send(phone, TEST_WATER_ACCOUNTS.active));
    const quote = await send(phone, '30');
    const done = await send(phone, option(quote, 'Buy'));
    expect(await phone.locator('.kind').innerText()).toBe('END');
    expect(done).toContain('SMS');
    expect(await phone.locator('.wire-text').textContent()).toContain('freeflow: FB');
    await answerPayment(phone);
    await inboxHas(phone, `Water ${TEST_WATER_ACCOUNTS.active}`);
  });

  it('buys airtime for another number over Arkesel (JSON, latest input only)', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('arkesel');
    const menu = await dial(phone);
    let screen = await send(phone, option(menu, locales.t('en', 'product.AIRTIME')));
    // With several networks the provider is asked first.
    const mascom = /(\d+) Mascom/i.exec(screen);
    if (mascom) screen = await send(phone, mascom[1]);
    // Arkesel carries no sequence: the gateway takes the same input again within 3 s for a
    // re-delivery, so this path never repeats an input (a person reads the screen first).
    screen = await send(phone, option(screen, locales.t('en', 'airtime.otherNumber')));
    expect(screen).toContain(locales.t('en', 'airtime.otherNumber.prompt'));
    await send(phone, '26774567890');
    const quote = await send(phone, '20');
    expect(quote).toContain('Airtime for');
    expect(await send(phone, option(quote, locales.t('en', 'quote.buy')))).toBe(
      locales.t('en', 'payment.approve', { amount: 'BWP 20.00' }),
    );
    expect(await phone.locator('.kind').innerText()).toBe('END');
    await answerPayment(phone);
    await inboxHas(phone, /^Airtime of BWP 20\.00 sent to/);
  });

  it('a one-dial shortcut over Africa’s Talking: *384*1*<meter>*100# opens on the quote, Buy is its own keypress', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('africastalking');
    const code = page.getByLabel('Service code');
    await code.fill(`*384*1*${TEST_METERS.tariffCharge}*100#`);
    try {
      const quote = await dial(phone);
      // The base code and the dialled groups, as Africa's Talking sends them.
      const wire = await phone.locator('.wire-text').textContent();
      expect(wire).toContain('serviceCode=*384%23');
      expect(wire).toContain(`text=1*${TEST_METERS.tariffCharge}*100`);
      expect(quote).toContain(TEST_METERS.tariffCharge);
      expect(quote).toContain(locales.t('en', 'quote.line.amount', { amount: 'BWP 100.00' }));
      expect(await phone.locator('.kind').innerText()).toBe('CON');
      const done = await send(phone, option(quote, locales.t('en', 'quote.buy')));
      expect(done).toMatch(/^Approve BWP [\d.]+ on your phone to pay/);
      await answerPayment(phone);
      await inboxHas(phone, new RegExp(`Electricity ${TEST_METERS.tariffCharge}[\\s\\S]*Token: `));
    } finally {
      await code.fill('*384#');
    }
  });

  it('a partial shortcut over Hubtel: *714*1*<meter># opens on the amount', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('hubtel');
    const code = page.getByLabel('Service code');
    await code.fill(`*714*1*${TEST_METERS.active13}#`);
    try {
      const amount = await dial(phone);
      expect(amount).toContain(locales.template('en', 'amount.promptRange')!.split('{')[0]);
      const quote = await send(phone, '40');
      expect(quote).toContain(TEST_METERS.active13);
      expect(quote).toContain(`1 ${locales.t('en', 'quote.buy')}`);
    } finally {
      // The next dial hangs this dialogue up.
      await code.fill('*384#');
    }
  });

  it('a gift: the token to another phone on the page, the payer approves and gets the receipt', async () => {
    const payer = phoneOf(SUBSCRIBER);
    const friend = phoneOf(SETSWANA);
    await chooseAggregator('africastalking');
    const menu = await dial(payer);
    await send(payer, option(menu, locales.t('en', 'product.ELECTRICITY')));
    const asked = await send(payer, TEST_METERS.subAccountSplit);
    expect(asked).toContain(locales.t('en', 'tokenFor.title'));
    const prompt = await send(payer, option(asked, locales.t('en', 'tokenFor.another')));
    expect(prompt).toContain(locales.t('en', 'tokenFor.prompt'));
    await send(payer, SETSWANA);
    const quote = await send(payer, '100');
    expect(quote).toContain(locales.t('en', 'quote.line.tokenTo', { msisdn: '267****5678' }));
    await send(payer, option(quote, locales.t('en', 'quote.buy')));
    // The payer pays: the push is on the payer's handset.
    await answerPayment(payer);
    // The token in the friend's inbox (in the purchase's language), the receipt in the payer's.
    const token = await inboxHas(friend, new RegExp(`${TEST_METERS.subAccountSplit}[\\s\\S]*Token: `));
    const receipt = await inboxHas(payer, `${TEST_METERS.subAccountSplit} for 267****5678`);
    expect(receipt).not.toMatch(/Token: \d{4}/);
    expect(/Ref: (\S+)/.exec(receipt)![1]).toBe(/Ref: (\S+)/.exec(token)![1]);
  });

  it('hangs up mid-dialogue over Infobip: the end notification goes to the session path', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('infobip');
    await dial(phone);
    await phone.getByRole('button', { name: /^Cancel/ }).click();
    await phone.locator('.screen-text', { hasText: 'end notification was sent (HTTP 200)' }).waitFor();
    expect(await phone.locator('.wire-text').textContent()).toMatch(
      /^PUT \/ussd\/infobip\/session\/sim\w+\/end/,
    );
  });

  it('buys by SMS through the composer: the quote in one inbound format, YES <code> in the other', async () => {
    const phone = phoneOf(SUBSCRIBER);
    const composer = phone.getByLabel(/^SMS text from/);
    await page.getByLabel('SMS inbound format').selectOption('africastalking');
    await composer.fill(`ELEC ${TEST_METERS.tariffCharge} 40`);
    await composer.press('Enter');
    const quote = await inboxHas(phone, /Reply YES \d{4}/);
    const code = /YES (\d{4})/.exec(quote)![1];

    await page.getByLabel('SMS inbound format').selectOption('inbound');
    await composer.fill(`YES ${code}`);
    await phone.getByRole('button', { name: /^Send SMS from/ }).click();
    await answerPayment(phone);
    const token = await inboxHas(phone, new RegExp(`Electricity ${TEST_METERS.tariffCharge}\\n.*Token: `));
    expect(token).toMatch(/Token: \d{4} \d{4} \d{4} \d{4} \d{4}/);
  });

  it('a push declined on the handset: not paid, told why, nothing bought', async () => {
    const phone = phoneOf(SUBSCRIBER);
    const composer = phone.getByLabel(/^SMS text from/);
    await page.getByLabel('SMS inbound format').selectOption('africastalking');
    await composer.fill(`ELEC ${TEST_METERS.active} 30`);
    await composer.press('Enter');
    // This quote, not an earlier one still in the inbox.
    const quote = await inboxHas(phone, /Amount: BWP 30\.00[\s\S]*Reply YES \d{4}/);
    await composer.fill(`YES ${/YES (\d{4})/.exec(quote)![1]}`);
    await composer.press('Enter');
    expect(await answerPayment(phone, 'Decline')).toMatch(/^Pay BWP 31\.50 to .+\. Enter PIN$/);
    const told = await inboxHas(phone, locales.t('en', 'payment.reason.declined'));
    expect(told).toContain('Nothing was bought');
    await page
      .locator('#payments-ledger tbody tr.failed', { hasText: `+${SUBSCRIBER}` })
      .first()
      .waitFor();
  });

  it('a failing scenario: a blocked meter gets its reason on the END screen and nothing is debited', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('hubtel');
    const menu = await dial(phone);
    await send(phone, option(menu, 'Electricity'));
    await tokenToThisPhone(phone, 'en', await send(phone, TEST_METERS.blocked));
    const screen = await send(phone, '100');
    expect(screen).toContain(locales.t('en', 'reason.meter_blocked'));
    const rows = (await ledger(gateway.purchaseServiceUrl)).filter(
      (r) => r.subscriber_identifier === TEST_METERS.blocked,
    );
    expect(rows.every((r) => r.debited_minor === 0)).toBe(true);
  });

  it('fault injection from the side panel: the next validate fails and the subscriber is told', async () => {
    const phone = phoneOf(SUBSCRIBER);
    await chooseAggregator('africastalking');
    await page.getByRole('button', { name: 'Validate fails (500)' }).click();
    await page.locator('#armed li', { hasText: 'validate: internal_error' }).waitFor();
    const menu = await dial(phone);
    await send(phone, option(menu, 'Electricity'));
    await tokenToThisPhone(phone, 'en', await send(phone, TEST_METERS.active));
    const screen = await send(phone, '100');
    expect(await phone.locator('.kind').innerText()).toBe('END');
    expect(screen).toContain(locales.t('en', 'error.serviceUnavailable'));
    await page.locator('#armed li').first().waitFor({ state: 'detached' });
  });

  it('plays an agent: the demo float agent dials and is asked for its PIN', async () => {
    const phone = phoneOf(AGENT);
    await phone.getByRole('button', { name: /^Make .* an agent/ }).click();
    const note = await phone.locator('.agent-note', { hasText: 'One-time PIN' }).innerText();
    const pin = /One-time PIN (\d+)/.exec(note)![1];
    await chooseAggregator('nalo');
    expect(await dial(phone)).toContain(locales.t('en', 'agent.pin.prompt'));
    expect(await send(phone, pin)).toContain('new PIN');
  });

  it('works on a narrow screen, from the keyboard only', async () => {
    const narrow = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const seen = watchPage(narrow, gateway.url);
    await narrow.goto(`${gateway.url}/simulator`);
    await narrow.getByText('Ready: choose a phone').waitFor();
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    // Enter in an idle handset's field dials; the screen answers.
    const field = narrow.getByLabel(`Reply on +${SUBSCRIBER}`);
    await field.focus();
    await field.press('Enter');
    await narrow.locator(`article.phone[data-msisdn="${SUBSCRIBER}"] .kind.con`).waitFor();
    await narrow.screenshot({ path: path.join(ARTIFACTS, 'simulator-narrow.png') });
    await field.press('Escape');
    await narrow.locator(`article.phone[data-msisdn="${SUBSCRIBER}"] .kind.idle`).waitFor();
    expect(seen).toEqual([]);
    await narrow.close();
  });
});
