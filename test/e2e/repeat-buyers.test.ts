import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { measure } from '../../src/i18n/gsm';
import { maskMsisdn } from '../../src/observability/logger';
import { TEST_METERS } from '../../src/sandbox';
import { SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { intent } from '../purchases/fixtures';
import { until } from '../support/wait';
import { newPhone, startTestGateway } from './harness';

/**
 * Issue 31 over USSD against the sandbox (machine version 7), in English and Setswana, on Africa's
 * Talking (cumulative `text`) and Hubtel (JSON, latest input, the dialled string in `Message` on
 * Initiation): a repeat buyer picks a saved meter, a gift asks who gets the token (asked by
 * default), one-dial shortcuts jump to the quote or the amount, a Buy for a meter whose purchase is
 * still in progress (the sandbox's delayed meter) asks first, My purchases opens a complaint case,
 * and Help names the care line. Setswana is the number's stored language, chosen on the Language
 * menu in a dialogue of its own; every text is read from the catalogues; every screen fits 182.
 */

const SCREEN_LIMIT = 182;
const CARE_PHONE = '3900000';
const locales = loadLocales();

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ CARE_PHONE, SANDBOX_DELAY_MS: '4000' });
});
afterAll(() => gateway.close());

interface Screen {
  screen: string;
  end: boolean;
}

/** One dialogue on one aggregator's wire format; `dial` is the first hop (with a shortcut's groups). */
interface Call {
  dial(dialled?: string): Promise<Screen>;
  send(input: string): Promise<Screen>;
  hangUp(): Promise<void>;
}

/** Every screen a test sees is checked against the limit as phones count it. */
function fits(reply: Screen): Screen {
  const { encoding, length } = measure(reply.screen);
  expect({ screen: reply.screen, encoding, fits: length <= SCREEN_LIMIT }).toEqual({
    screen: reply.screen,
    encoding: 'GSM-7',
    fits: true,
  });
  return reply;
}

let seq = 0;
const AGGREGATORS: Record<string, (phone: string) => Call> = {
  africastalking(phone) {
    const sessionId = `rb-at-${phone}-${++seq}`;
    const typed: string[] = [];
    const post = async (text: string) => {
      const { data } = await axios.post<string>(
        `${gateway.url}/ussd/africastalking`,
        new URLSearchParams({ sessionId, phoneNumber: `+${phone}`, serviceCode: '*384#', text }),
        { responseType: 'text' },
      );
      return fits({ screen: data.slice(4), end: data.startsWith('END ') });
    };
    return {
      // Africa's Talking: what was dialled after the code is the first `text`; every later text goes on from it.
      dial: (dialled) => {
        if (dialled) typed.push(dialled);
        return post(typed.join('*'));
      },
      send: (input) => {
        typed.push(input);
        return post(typed.join('*'));
      },
      hangUp: async () => {
        await axios.post(
          `${gateway.url}/ussd/africastalking/events`,
          new URLSearchParams({
            sessionId,
            phoneNumber: `+${phone}`,
            serviceCode: '*384#',
            status: 'Success',
          }),
        );
      },
    };
  },
  hubtel(phone) {
    const sessionId = `rb-hub-${phone}-${++seq}`;
    let sequence = 0;
    const post = async (type: string, message: string) => {
      const { data } = await axios.post<{ Type: string; Message: string }>(`${gateway.url}/ussd/hubtel`, {
        Type: type,
        Mobile: phone,
        SessionId: sessionId,
        ServiceCode: '714',
        Message: message,
        Operator: 'mtn',
        Sequence: ++sequence,
        ClientState: '',
      });
      return fits({ screen: data.Message, end: data.Type === 'Release' });
    };
    return {
      // Hubtel: the whole dialled string in Message on Initiation, then the latest input only.
      dial: (dialled) => post('Initiation', dialled ? `*714*${dialled}#` : '*714#'),
      send: (input) => post('Response', input),
      hangUp: async () => {
        await post('Release', '').catch(() => undefined);
      },
    };
  },
};

/** The number of a menu line whose label is `label` (`3 My purchases` → `3`). */
function optionNo(screen: string, label: string): string {
  const line = screen.split('\n').find((l) => l.replace(/^\d+ /, '') === label);
  if (!line) throw new Error(`no "${label}" in:\n${screen}`);
  return line.split(' ')[0];
}

/** The text of a catalogue message before its first placeholder. */
const lead = (lang: string, key: string) => locales.template(lang, key)!.split('{')[0];

/** A delivered purchase of the active meter for `phone` (its meter saved by the settlement hook). */
async function boughtBefore(phone: string): Promise<string> {
  const bought = await gateway.desk.create(
    intent({ requesterMsisdn: phone, beneficiaryMsisdn: phone, subscriberDetails: 'KABELO MOTSUMI' }),
    `repeat-${phone}`,
  );
  await until('delivered', async () => (await gateway.desk.get(bought.id))?.state === 'succeeded');
  await until(
    'meter saved',
    async () => (await new SqlSavedMeters(gateway.records).list(phone, 'ELECTRICITY'))[0],
  );
  return bought.id;
}

describe.each([
  ['africastalking', 'en'],
  ['africastalking', 'tn'],
  ['hubtel', 'en'],
  ['hubtel', 'tn'],
] as const)('%s, %s', (aggregator, lang) => {
  const t = (key: string, params: Record<string, string> = {}) => locales.t(lang, key, params);
  const call = AGGREGATORS[aggregator];

  /** A new number speaking `lang`: Setswana is chosen on the Language menu, in a dialogue of its own. */
  async function caller(): Promise<string> {
    const phone = newPhone();
    if (lang === 'en') return phone;
    const c = call(phone);
    const menu = await c.dial();
    const languages = await c.send(optionNo(menu.screen, locales.t('en', 'menu.language')));
    const saved = await c.send(optionNo(languages.screen, locales.meta(lang).name));
    expect(saved.screen).toContain(t('language.saved'));
    await c.hangUp();
    return phone;
  }

  it('a repeat buyer picks the saved meter; the quote shows meter and name', async () => {
    const phone = await caller();
    await boughtBefore(phone);
    const c = call(phone);
    const menu = await c.dial();
    expect(menu.screen).toContain(t('menu.title'));
    const offered = await c.send(optionNo(menu.screen, t('product.ELECTRICITY')));
    expect(offered.screen).toContain(`1 ${TEST_METERS.active} KABELO MOTSUMI`);
    expect(offered.screen).toContain(`2 ${t('identifier.another.ELECTRICITY')}`);
    const asked = await c.send('1');
    expect(asked.screen).toContain(
      `${t('tokenFor.title')}\n1 ${t('tokenFor.thisPhone')}\n2 ${t('tokenFor.another')}`,
    );
    const amount = await c.send(optionNo(asked.screen, t('tokenFor.thisPhone')));
    expect(amount.screen).toContain(lead(lang, 'amount.promptRange'));
    const quote = await c.send('100');
    expect(quote.screen).toContain(TEST_METERS.active);
    expect(quote.screen).toContain('KABELO');
    expect(quote.screen).toContain(t('quote.line.amount', { amount: 'BWP 100.00' }));
    expect(quote.screen).toContain(`1 ${t('quote.buy')}`);
    expect(quote.end).toBe(false);
  });

  it('a gift: the token goes to another number, named (masked) on the quote', async () => {
    const phone = await caller();
    const friend = newPhone();
    const c = call(phone);
    const menu = await c.dial();
    await c.send(optionNo(menu.screen, t('product.ELECTRICITY')));
    const asked = await c.send(TEST_METERS.active);
    const prompt = await c.send(optionNo(asked.screen, t('tokenFor.another')));
    expect(prompt.screen).toContain(t('tokenFor.prompt'));
    const amount = await c.send(friend);
    expect(amount.screen).toContain(lead(lang, 'amount.promptRange'));
    const quote = await c.send('100');
    expect(quote.screen).toContain(t('quote.line.tokenTo', { msisdn: maskMsisdn(friend) }));
    expect(quote.screen).toContain(`1 ${t('quote.buy')}`);
  });

  it('a one-dial shortcut jumps to the quote (Buy still its own keypress); a partial one to the amount', async () => {
    const phone = await caller();
    const full = await call(phone).dial(`1*${TEST_METERS.active}*100`);
    expect(full.end).toBe(false);
    expect(full.screen).toContain(TEST_METERS.active);
    expect(full.screen).toContain(t('quote.line.amount', { amount: 'BWP 100.00' }));
    expect(full.screen).toContain(`1 ${t('quote.buy')}\n2 ${t('quote.cancel')}`);

    const other = await caller();
    const partial = call(other);
    const amount = await partial.dial(`1*${TEST_METERS.active13}`);
    expect(amount.screen).toContain(lead(lang, 'amount.promptRange'));
    // The next hop is read as the amount.
    const quote = await partial.send('50');
    expect(quote.screen).toContain(TEST_METERS.active13);
    expect(quote.screen).toContain(`1 ${t('quote.buy')}`);
  });

  it('a Buy for a meter whose purchase is still in progress asks first; No leaves it', async () => {
    const phone = await caller();
    const late = await gateway.desk.create(
      intent({ requesterMsisdn: phone, beneficiaryMsisdn: phone, subscriberIdentifier: TEST_METERS.delayed }),
      `late-${phone}`,
    );
    const c = call(phone);
    const ask = await c.dial(`1*${TEST_METERS.delayed}*100`);
    // The question up to its reference (the late purchase's, unknown here).
    const asked = t('inProgress.ask', {
      amount: 'BWP 100.00',
      identifier: TEST_METERS.delayed,
      reference: '@',
    });
    expect(ask.screen).toContain(asked.split('@')[0]);
    expect(ask.screen).toContain(`1 ${t('inProgress.yes')}\n2 ${t('inProgress.no')}`);
    const no = await c.send(optionNo(ask.screen, t('inProgress.no')));
    expect(no).toEqual({ end: true, screen: t('inProgress.left') });
    // Nothing new was bought: the late purchase is the number's only one.
    expect((await gateway.desk.listByMsisdn(phone)).map((p) => p.id)).toEqual([late.id]);
  });

  it('My purchases: the delivered token; Report a problem opens a case', async () => {
    const phone = await caller();
    await boughtBefore(phone);
    const c = call(phone);
    const menu = await c.dial();
    const list = await c.send(optionNo(menu.screen, t('menu.myPurchases')));
    expect(list.screen).toContain(t('purchases.title'));
    expect(list.screen).toContain(TEST_METERS.active);
    const detail = await c.send('1');
    expect(detail.screen).toContain(lead(lang, 'purchase.token'));
    const reasons = await c.send(optionNo(detail.screen, t('purchase.report')));
    expect(reasons.screen).toContain(
      [
        t('report.title'),
        `1 ${t('report.reason.token_not_received')}`,
        `2 ${t('report.reason.meter_rejects')}`,
        `3 ${t('report.reason.wrong_meter')}`,
        `4 ${t('report.reason.other')}`,
      ].join('\n'),
    );
    const opened = await c.send(optionNo(reasons.screen, t('report.reason.other')));
    expect(opened.end).toBe(true);
    const [before, after] = locales.template(lang, 'report.opened')!.split('{case}');
    expect(opened.screen).toMatch(new RegExp(`^${escape(before)}\\d+${escape(after)}$`));
  });

  it('Help names the care line', async () => {
    const phone = await caller();
    const c = call(phone);
    const menu = await c.dial();
    const help = await c.send(optionNo(menu.screen, t('menu.help')));
    expect(help).toEqual({ end: true, screen: t('help.care', { phone: CARE_PHONE }) });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
