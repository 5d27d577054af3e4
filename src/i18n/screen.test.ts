import fc from 'fast-check';
import { loadLocales } from './catalogue';
import { measure } from './gsm';
import { renderScreen, type RenderedOption } from './screen';

const locales = loadLocales(undefined, { strict: true });
const opts = (...labels: string[]): RenderedOption[] =>
  labels.map((label, i) => ({ key: `k${i + 1}`, label }));

describe('renderScreen', () => {
  it('renders body, numbered options and localised nav on one page when it fits', () => {
    const screen = renderScreen(locales, {
      lang: 'tn',
      body: 'Tlhopha:',
      options: opts('Motlakase', 'Metsi'),
      nav: { back: true, home: true },
    });
    expect(screen).toEqual({
      text: 'Tlhopha:\n1 Motlakase\n2 Metsi\n0 Morago\n00 Tshimologo',
      page: 1,
      pages: 1,
      optionKeys: ['k1', 'k2'],
      encoding: 'GSM-7',
      length: 51,
    });
  });

  it('accepts a language tag and omits nav lines that are not asked for', () => {
    expect(renderScreen(locales, { lang: 'en-BW', body: 'Hi', options: opts('A') }).text).toBe('Hi\n1 A');
  });

  it('paginates with 98 More and 0 Back, numbering continuing across pages', () => {
    const options = opts('Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf');
    const input = { lang: 'en', body: 'Pick one:', options, limit: 52, nav: { home: true } };
    const p1 = renderScreen(locales, input);
    expect(p1).toMatchObject({ page: 1, pages: 3, optionKeys: ['k1', 'k2', 'k3'] });
    expect(p1.text).toBe('Pick one:\n1 Alpha\n2 Bravo\n3 Charlie\n98 More\n00 Home');
    const p2 = renderScreen(locales, { ...input, page: 2 });
    expect(p2.text).toBe('Pick one:\n4 Delta\n5 Echo\n98 More\n0 Back\n00 Home');
    const p3 = renderScreen(locales, { ...input, page: 3 });
    expect(p3.text).toBe('Pick one:\n6 Foxtrot\n7 Golf\n0 Back\n00 Home');
    expect(renderScreen(locales, { ...input, page: 9 }).page).toBe(3);
    expect(renderScreen(locales, { ...input, page: 0 }).page).toBe(1);
  });

  it('cuts a too-long body cleanly with ... so the screen fits', () => {
    const body = 'The quick brown fox jumps over the lazy dog. '.repeat(6);
    const screen = renderScreen(locales, { lang: 'en', body, limit: 60, nav: { back: true } });
    expect(screen.text).toBe('The quick brown fox jumps over the lazy dog. The...\n0 Back');
    expect(screen.length).toBeLessThanOrEqual(60);
  });

  it('cuts a long body only as far as each page needs', () => {
    const body = 'x'.repeat(100);
    const two = renderScreen(locales, { lang: 'en', body, options: opts('One', 'Two'), limit: 60 });
    expect(two).toMatchObject({ pages: 1, length: 60, text: `${'x'.repeat(45)}...\n1 One\n2 Two` });
    const input = { lang: 'en', body, options: opts('Option one', 'Option two', 'Option three'), limit: 60 };
    expect(renderScreen(locales, input)).toMatchObject({
      pages: 3,
      length: 60,
      text: `${'x'.repeat(36)}...\n1 Option one\n98 More`,
    });
    expect(renderScreen(locales, { ...input, page: 2 }).text).toBe(
      `${'x'.repeat(29)}...\n2 Option two\n98 More\n0 Back`,
    );
    expect(renderScreen(locales, { ...input, page: 3 }).text).toBe(
      `${'x'.repeat(35)}...\n3 Option three\n0 Back`,
    );
  });

  it('transliterates to GSM-7 where possible', () => {
    const screen = renderScreen(locales, { lang: 'en', body: '“Choose” – now…', options: opts('Ê') });
    expect(screen.text).toBe('"Choose" - now...\n1 E');
    expect(screen.encoding).toBe('GSM-7');
  });

  it('counts GSM-7 extension characters as two and UCS-2 text in code units', () => {
    const ext = renderScreen(locales, { lang: 'en', body: '{'.repeat(100), limit: 60 });
    expect(measure(ext.text).length).toBeLessThanOrEqual(60);
    expect(ext.text).toBe('{'.repeat(28) + '...');
    const ucs2 = renderScreen(locales, { lang: 'en', body: 'Ж'.repeat(100), limit: 60 });
    expect(ucs2).toMatchObject({ encoding: 'UCS-2', length: 60 });
  });

  it('cuts a single option label that alone exceeds the limit', () => {
    const screen = renderScreen(locales, {
      lang: 'en',
      body: 'B',
      options: opts('y'.repeat(200)),
      limit: 60,
    });
    expect(screen.text).toMatch(/^B\n1 y+\.\.\.$/);
    expect(screen.length).toBe(60);
  });

  it('refuses more options than numbers below 98', () => {
    const many = Array.from({ length: 98 }, (_, i) => ({ key: `k${i}`, label: 'x' }));
    expect(() => renderScreen(locales, { lang: 'en', body: '', options: many })).toThrow(RangeError);
  });

  it('property: every page fits, every option appears exactly once, numbering is stable', () => {
    const char = fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
      { weight: 2, arbitrary: fc.constantFrom(' ', '\n', '{', '€', '^', 'é', '’', '…', 'Ê', '\t') },
      { weight: 1, arbitrary: fc.constantFrom('Ж', '😀', '中') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    );
    const text = (maxLength: number) => fc.string({ unit: char, maxLength });
    fc.assert(
      fc.property(
        fc.record({
          lang: fc.constantFrom('en', 'tn'),
          body: text(300),
          labels: fc.array(text(80), { maxLength: 30 }),
          limit: fc.integer({ min: 60, max: 400 }),
          back: fc.boolean(),
          home: fc.boolean(),
        }),
        ({ lang, body, labels, limit, back, home }) => {
          const options = labels.map((label, i) => ({ key: `k${i}`, label }));
          const input = { lang, body, options, limit, nav: { back, home } };
          const first = renderScreen(locales, input);
          const seen: string[] = [];
          for (let page = 1; page <= first.pages; page++) {
            const screen = renderScreen(locales, { ...input, page });
            expect(screen.pages).toBe(first.pages);
            expect(screen.page).toBe(page);
            expect(measure(screen.text).length).toBeLessThanOrEqual(limit);
            expect(screen.length).toBe(measure(screen.text).length);
            if (options.length > 0) expect(screen.optionKeys.length).toBeGreaterThan(0);
            const lines = screen.text.split('\n');
            for (const key of screen.optionKeys) {
              const number = String(Number(key.slice(1)) + 1);
              expect(lines.some((l) => l.startsWith(`${number} `))).toBe(true);
            }
            expect(lines.some((l) => l.startsWith('98 '))).toBe(page < screen.pages);
            seen.push(...screen.optionKeys);
          }
          expect(seen).toEqual(options.map((o) => o.key));
        },
      ),
      { numRuns: 300 },
    );
  });
});
