import { renderScreen, type Locales } from '../../i18n';
import type { LocalText, Screen } from './dialogue';

/** A dialogue screen rendered for one page, plus what the next hop needs to read the reply. */
export interface RenderedDialogueScreen {
  text: string;
  page: number;
  pages: number;
  /** All option ids in order (numbering is global across pages). */
  optionIds: string[];
}

/**
 * A LocalText in a language: literal text as is, a message key through the catalogue, its
 * LocalText parameters (a product's name inside a prompt) rendered in the same language first.
 */
export function localText(locales: Locales, language: string, text: LocalText): string {
  if ('literal' in text) return text.literal;
  if (!text.params) return locales.t(language, text.key);
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(text.params))
    params[name] = typeof value === 'object' ? localText(locales, language, value) : value;
  return locales.t(language, text.key, params);
}

/**
 * Renders a machine's screen in `language`, fitted to `limit` and paginated by i18n's
 * `renderScreen`: the body may be cut, the `keep` lines never are. Final screens show no
 * navigation lines.
 */
export function renderDialogueScreen(
  locales: Locales,
  screen: Screen,
  language: string,
  limit: number,
  page = 1,
): RenderedDialogueScreen {
  const options = screen.options ?? [];
  const lines = (texts: readonly LocalText[]) =>
    texts.map((line) => localText(locales, language, line)).join('\n');
  const rendered = renderScreen(locales, {
    lang: language,
    body: lines(screen.body),
    ...(screen.keep?.length ? { kept: lines(screen.keep) } : {}),
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
