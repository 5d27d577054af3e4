import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type MessageCatalogue,
  MessageCatalogueError,
  loadLocales,
  Locales,
  languageOf,
  parseMessageCatalogue,
  placeholdersOf,
} from './catalogue';
import { encodingOf, smsParts, transliterate } from './gsm';
import { formatMoney } from '../vas/money';
import { renderScreen } from './screen';

const locales = loadLocales(undefined, { strict: true });
const langs = locales.languages();

/** Worst realistic values for every placeholder used in the catalogues. */
const SAMPLE: Record<string, string | number> = {
  product: 'Nako ya mogala',
  label: 'nomoro ya mitara ya metsi',
  hint: 'dipalo tse 11 go ya go 13',
  min: 11,
  max: 13,
  currency: 'BWP',
  name: 'KGOSIEMANG M. MOTSUMI-KEABETSW', // 30 characters: names are not cut, so screens are sized for this
  identifier: '0412345678901',
  units: '12345.6 kWh',
  amount: formatMoney({ currency: 'BWP', minor: 10000000 }),
  charges: formatMoney({ currency: 'BWP', minor: 1000000 }),
  total: formatMoney({ currency: 'BWP', minor: 11000000 }),
  msisdn: '267****4567',
  beneficiary: '267****4567',
  // Payments (src/payments, src/purchases/notify): what was paid and the provider's receipt.
  paid: formatMoney({ currency: 'BWP', minor: 11000000 }),
  receipt: 'QKH7X1Y2Z3',
  since: '2025-12-31 23:59',
  // Saved meters by SMS (sms.mo.meters lists one block per product; metersProduct its items).
  lists:
    'Motlakase:\n1 0412345678901 KGOSIEMANG M. MOTSUMI\n2 0412345678902 KGOSIEMANG M. MOTSUMI\nMetsi:\n1 0412345678903 KGOSIEMANG M. MOTSUMI',
  items: '1 0412345678901 KGOSIEMANG M. MOTSUMI\n2 0412345678902 KGOSIEMANG M. MOTSUMI',
  meters: 'DIMITARA',
  // A whole SMS quote a gift line is added to (sms.mo.quoteGift).
  quote:
    'Electricity 01234567890 KABELO MOTSUMI\nUnits: 70.6 kWh\nAmount: BWP 100.00\nCharges: BWP 1.50\nTotal: BWP 101.50\nReply YES 4821 to buy. Expires in 5 min.',
  date: '2025-12-31',
  description: 'KeyChange Token1',
  token: '1234 5678 9012 3456 7890',
  reference: 'GW-01JH2K3M4N5P6Q7R8S9T0V',
  // Spending rules (src/spend/).
  limit: formatMoney({ currency: 'BWP', minor: 100000000 }),
  count: 20,
  // Field agents' SMS (src/sms/).
  customer: '267****4567',
  float: formatMoney({ currency: 'BWP', minor: 100000000 }),
  available: formatMoney({ currency: 'BWP', minor: 100000000 }),
  held: formatMoney({ currency: 'BWP', minor: 100000000 }),
  left: 2,
  until: '23:59',
  value: formatMoney({ currency: 'BWP', minor: 100000000 }),
  account: 1001,
  state: 'succeeded',
  // Quote warnings and the provider's own words (machines/ussd/errors.ts caps them at 100).
  deducted: formatMoney({ currency: 'BWP', minor: 10000000 }),
  message: 'Purchase only allowed once the debt is paid. Visit the nearest BPC office to settle it',
  // SMS-MO replies (src/sms/).
  code: '4821',
  minutes: 5,
  yes: 'YES',
  keyword: 'MOTLAKASE',
  example: 'MOTLAKASE 0123456789012 100',
  networks: 'MASCOM, ORANGE, BTC',
  network: 'Botswana Telecommunications',
  provider: 'MASCOM',
  reason: 'Nomoro ya mitara e tshwanetse go nna dipalo tse 11 go ya go 13.',
  // The longest help text (Setswana), so reason + help is checked at its worst.
  help: 'Go reka ka SMS:\nMOTLAKASE <mitara> <madi>\nMETSI <akhaonto> <madi>\nMOGALA [neteweke] [nomoro] <madi>\nMorago EE <khoutu> go reka, NYAA go khansela.\nTOKENE [mitara]: ditokene\nPUO EN kgotsa TN: puo',
  elec: 'MOTLAKASE',
  water: 'METSI',
  air: 'MOGALA',
  no: 'NYAA',
  lang: 'PUO',
  // Customer care (CARE_PHONE, CARE_HOURS at their longest) and a complaint's case number.
  phone: '+267 390 0000 123456',
  hours: 'Mon-Fri 08:00-17:00, Sat 09:00-13:00 ok',
  case: 123456789,
  // The agent network (issue 32).
  commission: formatMoney({ currency: 'BWP', minor: 100000000 }),
  month: formatMoney({ currency: 'BWP', minor: 100000000 }),
  today: formatMoney({ currency: 'BWP', minor: 100000000 }),
  dealer: 'KGOSIEMANG M. MOTSUMI-KEABETSW', // a dealer's name, as `from`
  balance: formatMoney({ currency: 'BWP', minor: 100000000 }),
  closing: formatMoney({ currency: 'BWP', minor: 100000000 }),
  in: formatMoney({ currency: 'BWP', minor: 100000000 }),
  out: formatMoney({ currency: 'BWP', minor: 100000000 }),
  number: '26771234567',
  to: 'KGOSIEMANG M. MOTSUMI-KEABETSW (26771234567)',
  from: 'KGOSIEMANG M. MOTSUMI-KEABETSW',
  status: ' (e emisitswe)',
  day: '2025-12-31',
  id: 123456789,
  tokens: [
    'KeyChange Token1: 1234 5678 9012 3456 7890',
    'KeyChange Token2: 1234 5678 9012 3456 7890',
    'Credit Token: 1234 5678 9012 3456 7890',
  ].join('\n'),
};

/** Options each screen-key is shown with, so the standalone check includes them. */
const SCREEN_OPTIONS: Record<string, string[]> = {
  'quote.': ['quote.buy', 'quote.cancel'],
  'airtime.whoFor': ['airtime.myNumber', 'airtime.otherNumber'],
  'resume.prompt': ['resume.yes', 'resume.no'],
};

const paramsFor = (lang: string, key: string): Record<string, string | number> =>
  Object.fromEntries(placeholdersOf(locales.template(lang, key) ?? '').map((p) => [p, SAMPLE[p]]));

describe('catalogues', () => {
  it('has English and Setswana', () => {
    expect(langs).toEqual(['en', 'tn']);
    expect(locales.tags()).toEqual(['en-BW', 'tn-BW']);
    expect(locales.meta('tn')).toEqual({ name: 'Setswana', tag: 'tn-BW' });
  });

  test.each(langs)('%s has exactly the English keys with the same placeholders', (lang) => {
    const en = locales.keys();
    for (const key of en) {
      expect([key, locales.template(lang, key) !== undefined]).toEqual([key, true]);
      expect([key, placeholdersOf(locales.template(lang, key)!)]).toEqual([
        key,
        placeholdersOf(locales.template('en', key)!),
      ]);
    }
    const raw = JSON.parse(fs.readFileSync(path.join(__dirname, '../../locales', `${lang}.json`), 'utf8'));
    expect(
      Object.keys(raw)
        .filter((k) => k !== 'meta')
        .sort(),
    ).toEqual([...en].sort());
  });

  it('every placeholder has a sample value (so the checks below cover it)', () => {
    for (const lang of langs)
      for (const key of locales.keys())
        for (const p of placeholdersOf(locales.template(lang, key)!))
          expect([key, p, SAMPLE[p]]).not.toContainEqual(undefined);
  });

  // "Amount" (before charges) and "Total" (what is paid) read the same on every screen and SMS.
  test.each(langs)('%s: every labelled {amount} and {total} uses the quote line’s label', (lang) => {
    for (const field of ['amount', 'total']) {
      const label = (line: string) =>
        line
          .slice(0, line.indexOf(`: {${field}}`))
          .split('. ')
          .pop();
      const quoteLabel = label(locales.template(lang, `quote.line.${field}`)!);
      for (const key of locales.keys())
        for (const line of locales.template(lang, key)!.split('\n'))
          if (line.includes(`: {${field}}`)) expect([key, label(line)]).toEqual([key, quoteLabel]);
    }
  });

  test.each(langs)('%s: every message is GSM-7 once transliterated', (lang) => {
    for (const key of locales.keys()) {
      expect([key, encodingOf(transliterate(locales.t(lang, key, paramsFor(lang, key))))]).toEqual([
        key,
        'GSM-7',
      ]);
    }
  });

  test.each(langs)(
    '%s: every screen message fits 182 on its own, with its options and nav, untruncated',
    (lang) => {
      const keys = locales.keys().filter((k) => !k.startsWith('sms.') && !k.startsWith('meta'));
      for (const key of keys) {
        const body = locales.t(lang, key, paramsFor(lang, key));
        const optionKeys =
          Object.entries(SCREEN_OPTIONS).find(([prefix]) => key.startsWith(prefix))?.[1] ?? [];
        const options = optionKeys.map((k) => ({ key: k, label: locales.t(lang, k) }));
        const screen = renderScreen(locales, { lang, body, options, nav: { back: true, home: true } });
        expect([key, screen.pages, screen.length <= 182]).toEqual([key, 1, true]);
        expect([key, screen.text.startsWith(transliterate(body))]).toEqual([key, true]);
      }
    },
  );

  test.each(langs)('%s: every SMS fits 3 GSM-7 parts with worst-case values (success in 2)', (lang) => {
    for (const key of locales.keys().filter((k) => k.startsWith('sms.'))) {
      const parts = smsParts(transliterate(locales.t(lang, key, paramsFor(lang, key))));
      expect([key, parts.encoding, parts.parts <= 3]).toEqual([key, 'GSM-7', true]);
    }
    expect(
      smsParts(locales.t(lang, 'sms.success', paramsFor(lang, 'sms.success'))).parts,
    ).toBeLessThanOrEqual(2);
    // SMS-MO: a quote, the help and a refusal with the help each fit in two parts.
    for (const key of locales.keys().filter((k) => /^sms\.mo\.(quote|help)/.test(k)))
      expect([key, smsParts(transliterate(locales.t(lang, key, paramsFor(lang, key)))).parts <= 2]).toEqual([
        key,
        true,
      ]);
  });
});

describe('t()', () => {
  it('interpolates params, repeated and numeric', () => {
    const l = new Locales([
      { lang: 'en', meta: { name: 'English', tag: 'en-BW' }, messages: { a: '{x} and {x}: {n}' } },
    ]);
    expect(l.t('en', 'a', { x: 'y', n: 3 })).toBe('y and y: 3');
  });

  it('resolves languages from tags', () => {
    expect(languageOf('tn-BW')).toBe('tn');
    expect(languageOf('TN_bw')).toBe('tn');
    expect(locales.resolve('tn-BW')).toBe('tn');
    expect(locales.resolve('fr-FR')).toBe('en');
    expect(locales.resolve(undefined)).toBe('en');
    expect(locales.has('tn-BW')).toBe(true);
    expect(locales.has('fr')).toBe(false);
    expect(locales.t('tn-BW', 'nav.back')).toBe('Morago');
  });

  const catalogues: MessageCatalogue[] = [
    { lang: 'en', meta: { name: 'English', tag: 'en-BW' }, messages: { a: 'A {x}', onlyEn: 'E' } },
    { lang: 'tn', meta: { name: 'Setswana', tag: 'tn-BW' }, messages: { a: 'T {x}' } },
  ];

  it('strict: a missing key, an unknown or missing param, an unknown language throw', () => {
    const l = new Locales(catalogues, true);
    expect(() => l.t('tn', 'onlyEn')).toThrow(MessageCatalogueError);
    expect(() => l.t('tn', 'a', { x: 1, y: 2 })).toThrow(/unknown \[y\]/);
    expect(() => l.t('tn', 'a')).toThrow(/missing \[x\]/);
    expect(() => l.t('fr', 'a', { x: 1 })).toThrow(/no catalogue/);
  });

  it('lenient: falls back to English, then to the key; missing params render empty', () => {
    const l = new Locales(catalogues, false);
    expect(l.t('tn', 'onlyEn')).toBe('E');
    expect(l.t('tn', 'nope')).toBe('nope');
    expect(l.t('tn', 'a')).toBe('T ');
    expect(l.t('fr', 'a', { x: 1 })).toBe('A 1');
  });

  it('answers the same for a tag asked again, and past the tags it remembers', () => {
    const l = new Locales(catalogues, false);
    // Many distinct tags (an outside value stored as a preference) fill what resolve() remembers.
    for (let i = 0; i < 600; i += 1) expect(l.resolve(`x${i}-BW`)).toBe('en');
    for (const round of [1, 2]) {
      expect([round, l.resolve('tn-BW'), l.resolve('TN_bw'), l.resolve('fr-FR')]).toEqual([
        round,
        'tn',
        'tn',
        'en',
      ]);
      expect(l.t('tn-BW', 'a', { x: 1 })).toBe('T 1');
    }
  });

  it('returns a template without placeholders as it is, and still fills the others', () => {
    const l = new Locales(
      [
        {
          lang: 'en',
          meta: { name: 'English', tag: 'en-BW' },
          messages: { plain: 'No {braces here', a: '{x}!' },
        },
      ],
      true,
    );
    expect(l.t('en', 'plain')).toBe('No {braces here');
    expect(l.t('en', 'a', { x: 'y' })).toBe('y!');
  });
});

describe('loadLocales', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locales-'));
    fs.writeFileSync(
      path.join(dir, 'en.json'),
      JSON.stringify({ meta: { name: 'English', tag: 'en' }, a: 'A' }),
    );
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads every *.json and ignores other files', () => {
    fs.writeFileSync(
      path.join(dir, 'tn.json'),
      JSON.stringify({ meta: { name: 'Setswana', tag: 'tn-BW' }, a: 'T' }),
    );
    fs.writeFileSync(path.join(dir, 'README.md'), '# not a locale');
    expect(loadLocales(dir).languages()).toEqual(['en', 'tn']);
  });

  test.each([
    ['broken JSON', '{', /locale "xx"/],
    ['no meta', JSON.stringify({ a: 'A' }), /meta/],
    ['non-string message', JSON.stringify({ meta: { name: 'X', tag: 'xx' }, a: 1 }), /a:/],
    ['empty message', JSON.stringify({ meta: { name: 'X', tag: 'xx' }, a: '' }), /a:/],
    [
      'tag of another language',
      JSON.stringify({ meta: { name: 'X', tag: 'yy-BW' }, a: 'A' }),
      /not for language/,
    ],
  ])('refuses %s', (_label, content, message) => {
    fs.writeFileSync(path.join(dir, 'xx.json'), content);
    expect(() => loadLocales(dir)).toThrow(message);
  });

  it('requires an English catalogue', () => {
    expect(
      () => new Locales([parseMessageCatalogue('tn', { meta: { name: 'S', tag: 'tn' }, a: 'A' })]),
    ).toThrow(/"en"/);
  });

  it('finds <repo>/locales by default', () => {
    expect(loadLocales().languages()).toEqual(expect.arrayContaining(['en', 'tn']));
  });
});
