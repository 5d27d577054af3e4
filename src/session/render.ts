import { renderScreen, type Locales } from '../i18n';
import type { LocalText, Screen } from './dialogue';

/** A dialogue screen rendered for one page, plus what the next hop needs to read the reply. */
export interface RenderedDialogueScreen {
  text: string;
  page: number;
  pages: number;
  /** All option ids in order (numbering is global across pages). */
  optionIds: string[];
}

/** A LocalText in a language: literal text as is, a message key through the catalogue. */
export function localText(locales: Locales, language: string, text: LocalText): string {
  return 'literal' in text ? text.literal : locales.t(language, text.key, text.params ?? {});
}

/**
 * Renders a machine's screen in `language`, fitted to `limit` and paginated by i18n's
 * `renderScreen`. Final screens show no navigation lines.
 */
export function renderDialogueScreen(
  locales: Locales,
  screen: Screen,
  language: string,
  limit: number,
  page = 1,
): RenderedDialogueScreen {
  const options = screen.options ?? [];
  const rendered = renderScreen(locales, {
    lang: language,
    body: screen.body.map((line) => localText(locales, language, line)).join('\n'),
    options: options.map((o) => ({ key: o.id, label: localText(locales, language, o.label) })),
    limit,
    page,
    nav: screen.final ? {} : { back: screen.back, home: screen.home },
  });
  return {
    text: rendered.text,
    page: rendered.page,
    pages: rendered.pages,
    optionIds: options.map((o) => o.id),
  };
}
