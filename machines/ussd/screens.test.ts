/**
 * Every screen the dialogue reaches, rendered in every locale through the real catalogues and
 * the engine's renderer: all keys exist with the right params (strict locales), every page fits
 * the limit as phones count it, the lines a screen keeps are never cut — and every shape of the
 * quote, at the worst values, shows its amount and total whole at limits 160 and 182.
 */
import { loadLocales, measure, transliterate } from '../../src/i18n';
import type { Screen } from '../../src/ussd/engine/dialogue';
import { localText, renderDialogueScreen } from '../../src/ussd/engine/render';
import type { QuoteView, UssdContext } from './context';
import { dialogueScreen, quoteScreen } from './screens';
import { ELEC_INTENT } from './test-kit';
import { SCRIPTS, play } from './test-scripts';

const locales = loadLocales(undefined, { strict: true });
const oneLine = (text: string) => transliterate(text).replace(/\s+/g, ' ').trim();

/** Distinct screens reached by the scripts (the machine is language-independent), and a context. */
let played: Promise<{ screens: Screen[]; context: UssdContext }> | undefined;
const reached = () => (played ??= playAll());
async function playAll(): Promise<{ screens: Screen[]; context: UssdContext }> {
  const seen = new Map<string, Screen>();
  let context: UssdContext | undefined;
  for (const script of SCRIPTS) {
    const d = await play(script, false);
    for (const s of d.seen) {
      const screen = dialogueScreen(s.context)!;
      seen.set(JSON.stringify(screen), screen);
      if (s.value === 'quote') context ??= s.context;
    }
  }
  return { screens: [...seen.values()], context: context! };
}

/** Every page of a screen, each checked to fit. */
function pages(screen: Screen, lang: string, limit: number) {
  const first = renderDialogueScreen(locales, screen, lang, limit);
  return Array.from({ length: first.pages }, (_, i) => {
    const r = renderDialogueScreen(locales, screen, lang, limit, i + 1);
    expect({ page: i + 1, length: measure(r.text).length <= limit, text: r.text }).toMatchObject({
      length: true,
    });
    return r.text;
  });
}

/** The kept lines and the options each appear whole on some page, in order; nothing is lost. */
function expectWhole(screen: Screen, lang: string, shown: string[]): void {
  const lines = shown.flatMap((p) => p.split('\n'));
  const kept = (screen.keep ?? []).map((t) => transliterate(localText(locales, lang, t)));
  const options = (screen.options ?? []).map(
    (o, i) => `${i + 1} ${oneLine(localText(locales, lang, o.label))}`,
  );
  const at = [...kept, ...options].map((line) => lines.indexOf(line));
  expect({ lang, lines, missing: [...kept, ...options].filter((_, i) => at[i] < 0) }).toMatchObject({
    missing: [],
  });
  // In order: the total comes before Buy, never after it on a later page.
  expect(at).toEqual([...at].sort((a, b) => a - b));
}

describe('every screen in every locale', () => {
  it('fits 182 on every page without cutting the text', async () => {
    const { screens } = await reached();
    expect(screens.length).toBeGreaterThan(25);
    for (const lang of locales.languages()) {
      for (const screen of screens) {
        const shown = pages(screen, lang, 182);
        expectWhole(screen, lang, shown);
        const body = transliterate(screen.body.map((t) => localText(locales, lang, t)).join('\n'));
        expect({ lang, body, first: shown[0].startsWith(body) ? '' : shown[0] }).toEqual({
          lang,
          body,
          first: '',
        });
      }
    }
  });
});

describe('every quote shape in every locale at 160 and 182', () => {
  const money = (minor: number) => ({ currency: 'BWP', minor });
  const worst: QuoteView = {
    intent: { ...ELEC_INTENT, subscriberIdentifier: '0123456789012', amount: money(9_999_999) },
    subscriberDetails: 'KGOSIETSILE MOTLHABANE-SETSHWAELO OF PLOT 12345, GABORONE WEST',
    units: '83333.3 kWh',
    amount: money(9_999_999),
    charge: money(150),
    total: money(10_000_149),
    deducted: null,
  };
  const shapes: Array<[string, QuoteView]> = [
    ['name and units', worst],
    ['no name', { ...worst, subscriberDetails: null }],
    ['no units', { ...worst, units: null }],
    ['neither', { ...worst, units: null, subscriberDetails: null }],
    ['a fixed charge eating the amount', { ...worst, deducted: money(9_000_000) }],
    [
      'airtime',
      {
        ...worst,
        intent: { ...worst.intent, productType: 'AIRTIME', subscriberIdentifier: '26771234567' },
        subscriberDetails: null,
        units: null,
      },
    ],
  ];
  const cases = shapes.flatMap(([name, quote]) =>
    locales
      .languages()
      .flatMap((lang) =>
        [160, 182].flatMap((limit) =>
          [false, true].map((withNotice) => [name, lang, limit, withNotice, quote] as const),
        ),
      ),
  );

  it.each(cases)('%s, %s, limit %i, notice %s: amount and total whole, Buy offered', async (...c) => {
    const [, lang, limit, withNotice, quote] = c;
    const { context } = await reached();
    const ctx: UssdContext = {
      ...context,
      language: lang,
      purchase: { ...context.purchase, quote },
      notice: withNotice ? { key: 'error.invalidChoice' } : null,
    };
    const screen = quoteScreen(ctx);
    const shown = pages(screen, lang, limit);
    expectWhole(screen, lang, shown);
    const text = shown.join('\n');
    expect(text).toContain(
      `${transliterate(locales.t(lang, 'quote.line.total', { total: 'BWP 100001.49' }))}`,
    );
    expect(text).toContain(locales.t(lang, 'quote.line.amount', { amount: 'BWP 99999.99' }));
  });
});
