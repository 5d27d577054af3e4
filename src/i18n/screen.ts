import type { Locales } from './catalogue';
import { measure, transliterate, type SmsEncoding } from './gsm';

/** Default USSD screen limit: 182 GSM-7 septets (fewer characters when the text needs UCS-2). */
export const DEFAULT_SCREEN_LIMIT = 182;

/** Reserved navigation inputs, the same on every screen. */
export const NAV_INPUT = { back: '0', home: '00', more: '98' } as const;

/** Options are numbered 1..97 so that no number collides with `98 More`. */
export const MAX_OPTIONS = 97;

/** A numbered choice, already translated (the session's `ScreenOption` after its label is rendered): `key` is what the machine receives, `label` what the user sees. */
export interface RenderedOption {
  key: string;
  label: string;
}

/** What a state wants shown: body text (already translated), options and navigation lines. */
export interface ScreenInput {
  lang: string;
  /** Text above the options; cut with `...` when nothing else makes the screen fit. */
  body: string;
  /**
   * Lines after the body that are never cut (a quote's amounts and total). When the screen is
   * too small the body is cut (even to nothing) first, then these lines and the options are
   * spread over pages, each line whole.
   */
  kept?: string;
  options?: RenderedOption[];
  /** Measured as phones count (see `measure`); default {@link DEFAULT_SCREEN_LIMIT}. */
  limit?: number;
  /** 1-based; clamped to the pages that exist. */
  page?: number;
  nav?: { back?: boolean; home?: boolean };
}

/** One page of a screen, ready to send; `measure(text).length <= limit` always holds. */
export interface RenderedScreen {
  text: string;
  page: number;
  pages: number;
  /** Keys of the options shown on this page, in order. */
  optionKeys: string[];
  encoding: SmsEncoding;
  length: number;
}

const ELLIPSIS = '...';
/** A body cut shorter than this (a name cut to a few letters) is paged instead, where a choice exists. */
const MIN_CUT_BODY = 10;

/**
 * Renders a screen: body, numbered options, then `98 More`, `0 Back`, `00 Home` as applicable,
 * transliterated to GSM-7 where possible and fitted to `limit`.
 *
 * - Everything fits: one page.
 * - Otherwise options are spread over pages (greedily, in order). Numbering is global (page 2
 *   may start at 6), so an input maps to the same option whatever page is shown. Page 2+ shows
 *   `0 Back` to the previous page; every page but the last shows `98 More`.
 * - Only when a page cannot hold even one option is the body (then a long label) cut with `...`.
 */
export function renderScreen(locales: Locales, input: ScreenInput): RenderedScreen {
  const limit = input.limit ?? DEFAULT_SCREEN_LIMIT;
  const options = input.options ?? [];
  if (options.length > MAX_OPTIONS)
    throw new RangeError(`at most ${MAX_OPTIONS} options, got ${options.length}`);
  const fits = (text: string): boolean => measure(text).length <= limit;

  const navLabel = (key: string): string => oneLine(transliterate(locales.t(input.lang, key)));
  const moreLine = `${NAV_INPUT.more} ${navLabel('nav.more')}`;
  const backLine = `${NAV_INPUT.back} ${navLabel('nav.back')}`;
  const homeLine = `${NAV_INPUT.home} ${navLabel('nav.home')}`;
  const navLines = (page: number, more: boolean): string[] => [
    ...(more ? [moreLine] : []),
    ...(page > 1 || input.nav?.back ? [backLine] : []),
    ...(input.nav?.home ? [homeLine] : []),
  ];
  // Worst-case navigation (a middle page): More, Back, and Home when asked.
  const navWorst = [moreLine, backLine, ...(input.nav?.home ? [homeLine] : [])];

  const body = transliterate(input.body).replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const labels = options.map((o) => oneLine(transliterate(o.label)));
  const numbered = (i: number, label: string): string => `${i + 1} ${label}`;
  const lines = labels.map((l, i) => numbered(i, l));

  if (input.kept !== undefined && input.kept.trim() !== '') return renderKept(input.kept);

  const single = compose(body, lines, navLines(1, false));
  if (fits(single)) return page1(single, options);

  if (options.length <= 1) {
    // One page whatever happens: cut the label (if it leaves no room for the body), then the body.
    const nav = navLines(1, false);
    const pad1 = 'x'.repeat(bodyReserve(nav));
    const fitted = lines.map((_, i) => fitLabel(i, labels[i], nav, pad1));
    const b = cut(body, (c) => fits(compose(c, fitted, nav)));
    return page1(compose(b ?? '', fitted, nav), options);
  }

  // Paginated.
  // Keep room for some body next to any option: labels longer than that are cut first.
  const pad = 'x'.repeat(bodyReserve(navWorst));
  const pageLines = lines.map((line, i) =>
    fits(compose(pad, [line], navWorst)) ? line : fitLabel(i, labels[i], navWorst, pad),
  );
  // The body every page can carry beside any one option; used to decide the pages.
  const pageBody = cut(body, (c) => pageLines.every((line) => fits(compose(c, [line], navWorst)))) ?? '';

  const ranges = packPages(pageLines.length, (page, start, end, more) =>
    fits(compose(pageBody, pageLines.slice(start, end), navLines(page, more))),
  );
  return pageOf(ranges, (from, to) => ({
    lines: pageLines.slice(from, to),
    optionKeys: options.slice(from, to).map((o) => o.key),
  }));

  /**
   * A screen with lines that are never cut: on one page with the body cut as far as needed;
   * otherwise the kept lines, then the options, packed greedily over pages (the body on every
   * page as far as it fits, which may be nothing).
   */
  function renderKept(keptText: string): RenderedScreen {
    const kept = transliterate(keptText)
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '');
    const nav1 = navLines(1, false);
    const one = cut(body, (c) => fits(compose(c, [...kept, ...lines], nav1)));
    // One page if the body keeps something worth reading (a name cut to "..." says nothing).
    const worthIt = one !== undefined && (one === body || one.length - ELLIPSIS.length >= MIN_CUT_BODY);
    if (worthIt) return page1(compose(one, [...kept, ...lines], nav1), options);

    // Every item must fit a page on its own: a kept line longer than that is a bug of the
    // caller's limit, cut rather than crash; an option label is cut as on any screen.
    const items = [
      ...kept.map((text) => ({ text: cut(text, (c) => fits(compose('', [c], navWorst))) ?? '', option: -1 })),
      ...lines.map((line, i) => ({
        text: fits(compose('', [line], navWorst)) ? line : fitLabel(i, labels[i], navWorst),
        option: i,
      })),
    ];
    // Page 1 keeps room for the body's start (other pages show what is left room for).
    const chars = Array.from(body);
    const head1 = chars.length <= MIN_CUT_BODY ? body : chars.slice(0, MIN_CUT_BODY).join('') + ELLIPSIS;
    const texts = (from: number, to: number) => items.slice(from, to).map((it) => it.text);
    const ranges = packPages(items.length, (page, start, end, more) =>
      fits(compose(page === 1 ? head1 : '', texts(start, end), navLines(page, more))),
    );
    return pageOf(ranges, (from, to) => ({
      lines: texts(from, to),
      optionKeys: items
        .slice(from, to)
        .filter((it) => it.option >= 0)
        .map((it) => options[it.option].key),
    }));
  }

  /**
   * The asked page (clamped to those in `ranges`) with its lines and as much of the body as fits
   * beside them: the body was cut for the worst page, this one may have room for more of it.
   */
  function pageOf(
    ranges: Array<[number, number]>,
    shownOn: (from: number, to: number) => { lines: string[]; optionKeys: string[] },
  ): RenderedScreen {
    const pages = ranges.length;
    const page = Math.min(Math.max(1, Math.floor(input.page ?? 1)), pages);
    const { lines: shown, optionKeys } = shownOn(...ranges[page - 1]);
    const nav = navLines(page, page < pages);
    const text = compose(cut(body, (c) => fits(compose(c, shown, nav))) ?? '', shown, nav);
    return { text, page, pages, optionKeys, ...measured(text) };
  }

  /** Room kept for the body beside one option: up to half of what the nav lines leave. */
  function bodyReserve(nav: string[]): number {
    const navLength = nav.length === 0 ? 0 : measure(nav.join('\n')).length + 1;
    return Math.min(measure(body).length, Math.max(0, Math.floor((limit - navLength) / 2)));
  }

  function page1(text: string, shown: RenderedOption[]): RenderedScreen {
    return { text, page: 1, pages: 1, optionKeys: shown.map((o) => o.key), ...measured(text) };
  }

  /** `text` measured; a text over the limit is a bug of the caller's limit, never sent. */
  function measured(text: string): { encoding: SmsEncoding; length: number } {
    const m = measure(text);
    if (m.length > limit) throw new Error(`screen does not fit ${limit} (${m.length}): limit too small?`);
    return m;
  }

  /** The option line with its label cut so it fits beside `nav` (and `withBody`, if given). */
  function fitLabel(i: number, label: string, nav: string[], withBody = ''): string {
    const line = numbered(i, label);
    if (fits(compose(withBody, [line], nav))) return line;
    const fitted = cut(label, (c) => fits(compose(withBody, [numbered(i, c)], nav)));
    if (fitted === undefined) throw new RangeError(`screen limit ${limit} cannot hold option ${i + 1}`);
    return numbered(i, fitted);
  }
}

/**
 * Greedy packing of `count` lines over pages: the rest on a page if they fit without More, else
 * as many as fit with More, and always at least one (the body is cut again when the page is
 * shown if an encoding corner case, such as a page switching to GSM-7 where extension characters
 * count double, needs it). `fitsOn(page, start, end, more)`: lines start..end-1 fit on `page`.
 */
function packPages(
  count: number,
  fitsOn: (page: number, start: number, end: number, more: boolean) => boolean,
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < count;) {
    const page = ranges.length + 1;
    if (fitsOn(page, start, count, false)) {
      ranges.push([start, count]);
      break;
    }
    let end = start + 1;
    while (end < count && fitsOn(page, start, end + 1, true)) end++;
    ranges.push([start, end]);
    start = end;
  }
  return ranges;
}

function compose(body: string, options: string[], nav: string[]): string {
  return [...(body === '' ? [] : [body]), ...options, ...nav].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The longest prefix of `text` (whole code points, trailing space trimmed, ending on a word
 * boundary when that costs at most a few characters) followed by `...` that satisfies `ok`;
 * `text` itself when it does; `''` when only that does; undefined when nothing does.
 */
function cut(text: string, ok: (candidate: string) => boolean): string | undefined {
  if (ok(text)) return text;
  const chars = Array.from(text);
  const candidate = (n: number): string => {
    const prefix = chars.slice(0, n).join('').trimEnd();
    return prefix === '' ? ELLIPSIS : prefix + ELLIPSIS;
  };
  if (!ok(candidate(0))) return ok('') ? '' : undefined;
  // Binary search keeps the invariant ok(candidate(lo)) && !ok(text); it finds a longest-fitting
  // prefix when the predicate is monotone (it is, but for encoding switches) and a fitting one always.
  let lo = 0;
  let hi = chars.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (ok(candidate(mid))) lo = mid;
    else hi = mid;
  }
  // Prefer ending on a word boundary when it loses at most 12 characters.
  if (lo < chars.length && !/\s/.test(chars[lo]) && lo > 0 && !/\s/.test(chars[lo - 1])) {
    for (let n = lo - 1; n > 0 && lo - n <= 12; n--) {
      if (/\s/.test(chars[n])) {
        if (ok(candidate(n))) return candidate(n);
        break;
      }
    }
  }
  return candidate(lo);
}
