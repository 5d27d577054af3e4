/**
 * Every screen the dialogue reaches, rendered in every locale through the real catalogues and
 * renderScreen: all keys exist with the right params (strict locales), every page fits 182
 * characters as phones count them, and nothing of the machine's text had to be cut.
 */
import { loadLocales, measure, renderScreen, transliterate, type Locales } from '../../src/i18n';
import type { LocalText, Screen } from '../../src/session/dialogue';
import { SCRIPTS, play } from './test-scripts';

const LIMIT = 182;

function say(locales: Locales, lang: string, t: LocalText): string {
  return 'literal' in t ? t.literal : locales.t(lang, t.key, t.params);
}

/** Distinct screens reached by the scripts (the machine is language-independent). */
async function reachedScreens(): Promise<Screen[]> {
  const seen = new Map<string, Screen>();
  for (const script of SCRIPTS) {
    const d = await play(script, false);
    for (const s of d.seen) seen.set(JSON.stringify(s.context.screen), s.context.screen);
  }
  return [...seen.values()];
}

describe('every screen in every locale', () => {
  const locales = loadLocales(undefined, { strict: true });

  it('fits the screen limit on every page without cutting the text', async () => {
    const screens = await reachedScreens();
    expect(screens.length).toBeGreaterThan(25);
    for (const lang of locales.languages()) {
      for (const screen of screens) {
        const body = screen.body.map((t) => say(locales, lang, t)).join('\n');
        const options = (screen.options ?? []).map((o) => ({
          key: o.id,
          label: say(locales, lang, o.label),
        }));
        const input = { lang, body, options, limit: LIMIT, nav: { back: screen.back, home: screen.home } };
        const first = renderScreen(locales, input);
        const shown: string[] = [];
        for (let page = 1; page <= first.pages; page++) {
          const r = renderScreen(locales, { ...input, page });
          expect(measure(r.text).length).toBeLessThanOrEqual(LIMIT);
          shown.push(r.text);
          // Each page's options appear with their whole label.
          for (const key of r.optionKeys) {
            const o = options.find((x) => x.key === key)!;
            expect(r.text).toContain(transliterate(o.label).replace(/\s+/g, ' ').trim());
          }
        }
        const context = `${lang}: ${body}`;
        expect({ context, bodyShown: shown[0].startsWith(transliterate(body)) }).toEqual({
          context,
          bodyShown: true,
        });
        expect(shown.flatMap((_, i) => renderScreen(locales, { ...input, page: i + 1 }).optionKeys)).toEqual(
          options.map((o) => o.key),
        );
      }
    }
  });
});
